"""Installs the ``penstock`` package: ``pip install ./python`` (in a venv made with
``--system-site-packages``, so that Debian's NumPy and JPype are seen). The package records
where this checkout is, to find the JVM jars ``./penstock`` builds there."""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPy(build_py):
    def run(self):
        super().run()
        with open(os.path.join(self.build_lib, "penstock", "_home.py"), "w") as f:
            f.write("# written by setup.py: the Penstock checkout this package was installed from\n")
            f.write("HOME = %r\n" % os.path.dirname(HERE))


setup(
    name="penstock",
    version="0.1.0",
    description="Penstock from Python: the JVM engine's encoders, loader and stage pipelines in-process",
    packages=["penstock"],
    python_requires=">=3.9",
    install_requires=["numpy", "JPype1>=1.4"],
    cmdclass={"build_py": BuildPy},
)
