"""placeholder"""
from .core import table

RECORDS, record = table("numpy")
