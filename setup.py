"""Package discovery, which pyproject.toml cannot express: the repository's top-level folders
become subpackages of jitgrad (ir/ -> jitgrad.ir, ...), and every package below them is found
automatically, so a new subpackage can never be left out of the wheel."""
from setuptools import find_namespace_packages, setup

ROOTS = {"jitgrad": "jitgrad", "jitgrad.ir": "ir", "jitgrad.codegen": "codegen",
         "jitgrad.runtime": "runtime", "jitgrad.benchmarks": "benchmarks"}

packages = []
for name, folder in ROOTS.items():
    packages += [name] + [f"{name}.{sub}" for sub in
                          find_namespace_packages(folder, exclude=["*__pycache__*"])]

setup(packages=packages, package_dir=ROOTS)
