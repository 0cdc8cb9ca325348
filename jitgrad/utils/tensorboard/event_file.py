"""TensorBoard's event-file format, written without TensorFlow or protobuf: records framed as
TFRecords (length, masked CRC-32C of the length, data, masked CRC-32C of the data) holding
`Event` protocol buffers, encoded here field by field.

The messages and field numbers are TensorBoard's (tensorboard/compat/proto): Event {1 wall_time
double, 2 step int64, 3 file_version string, 5 summary}, Summary {1 value}, Summary.Value
{1 tag, 2 simple_value float, 5 histo, 8 tensor, 9 metadata}, HistogramProto {1 min, 2 max,
3 num, 4 sum, 5 sum_squares, 6 bucket_limit packed, 7 bucket packed}, SummaryMetadata
{1 plugin_data {1 plugin_name, 2 content}}, TensorProto {1 dtype, 2 tensor_shape, 8 string_val}.
"""
from __future__ import annotations

import struct


def _crc32c_table() -> list:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1      # Castagnoli, reflected
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of `data`: crc32c(b"123456789") == 0xE3069283."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc(data: bytes) -> int:
    """The TFRecord checksum: CRC-32C rotated right by 15 bits plus a constant."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(data: bytes) -> bytes:
    """One TFRecord frame around `data`."""
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", masked_crc(length)) + data
            + struct.pack("<I", masked_crc(data)))


# ----------------------------------------------------------------- protocol-buffer wire format

def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1          # negative int64 values: two's complement, ten bytes
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def varint_field(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(int(value))


def double_field(number: int, value: float) -> bytes:
    return _varint(number << 3 | 1) + struct.pack("<d", float(value))


def float_field(number: int, value: float) -> bytes:
    return _varint(number << 3 | 5) + struct.pack("<f", float(value))


def bytes_field(number: int, value) -> bytes:
    """A length-delimited field: a string, bytes or an encoded message."""
    data = value.encode() if isinstance(value, str) else bytes(value)
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def packed_doubles(number: int, values) -> bytes:
    return bytes_field(number, b"".join(struct.pack("<d", float(v)) for v in values))


# ----------------------------------------------------------------- the messages written

def event(wall_time: float, step: int | None = None, *, summary: bytes | None = None,
          file_version: str | None = None) -> bytes:
    out = double_field(1, wall_time)
    if step is not None:
        out += varint_field(2, step)
    if file_version is not None:
        out += bytes_field(3, file_version)
    if summary is not None:
        out += bytes_field(5, summary)
    return out


def summary(*values: bytes) -> bytes:
    return b"".join(bytes_field(1, v) for v in values)


def scalar_value(tag: str, value: float) -> bytes:
    return bytes_field(1, tag) + float_field(2, value)


def text_value(tag: str, text: str) -> bytes:
    """A string tensor of shape [1] for the text plugin."""
    metadata = bytes_field(1, bytes_field(1, "text"))
    shape = bytes_field(2, varint_field(1, 1))          # TensorShapeProto {dim {size 1}}
    tensor = varint_field(1, 7) + bytes_field(2, shape) + bytes_field(8, text)  # 7: DT_STRING
    return bytes_field(1, tag + "/text_summary") + bytes_field(8, tensor) + bytes_field(9, metadata)


def histogram_value(tag: str, lo, hi, num, total, sum_squares, limits, counts) -> bytes:
    histo = (double_field(1, lo) + double_field(2, hi) + double_field(3, num)
             + double_field(4, total) + double_field(5, sum_squares)
             + packed_doubles(6, limits) + packed_doubles(7, counts))
    return bytes_field(1, tag) + bytes_field(5, histo)
