"""Builds the tunefarm Python package with the project's CMake build (scripts/build.sh, or the build
tree named by TUNEFARM_BUILD_DIR) and packs what it made: the extensions, the measure worker, the
Python files and stubs. See pyproject.toml and docs/python.md."""
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
# setuptools' own scratch files stay inside the CMake build tree (which is git-ignored).
SCRATCH = os.path.join(ROOT, "build", "setuptools")


class BuildWithCMake(build_py):
    """The package's compiled parts come from CMake's target tunefarm_python."""

    def run(self):
        build_dir = os.environ.get("TUNEFARM_BUILD_DIR")
        if build_dir:
            subprocess.run(["cmake", "--build", build_dir, "--target", "tunefarm_python"], check=True)
        else:
            build_dir = os.path.join(ROOT, "build")
            subprocess.run([os.path.join(ROOT, "scripts", "build.sh"), "tunefarm_python"], check=True)
        super().run()
        built = os.path.join(build_dir, "python", "tunefarm")
        target = os.path.join(self.build_lib, "tunefarm")
        os.makedirs(target, exist_ok=True)
        for name in os.listdir(built):
            if name.endswith(".so") or name == "tunefarm-measure-worker":
                shutil.copy2(os.path.join(built, name), os.path.join(target, name))


class BinaryDistribution(Distribution):
    """Compiled extensions inside: the wheel is for this platform and this Python."""

    def has_ext_modules(self):
        return True


os.makedirs(SCRATCH, exist_ok=True)
setup(
    packages=["tunefarm"],
    package_dir={"tunefarm": "python/tunefarm"},
    package_data={"tunefarm": ["*.pyi", "py.typed"]},
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}},
    zip_safe=False,
)
