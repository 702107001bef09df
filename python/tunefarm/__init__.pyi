import os
from typing import Any, Mapping, Optional, TypedDict

import numpy as np
import numpy.typing as npt

class TensorInfo(TypedDict):
    name: str
    shape: tuple[int, ...]
    dtype: str

class BenchResult(TypedDict):
    runs: int
    min_ms: float
    median_ms: float
    threads: int

class Model:
    def __init__(self, path: str, threads: int = 1) -> None: ...
    @property
    def inputs(self) -> list[TensorInfo]: ...
    @property
    def outputs(self) -> list[TensorInfo]: ...
    @property
    def threads(self) -> int: ...
    def run(self, feeds: Mapping[str, npt.NDArray[Any]]) -> dict[str, npt.NDArray[Any]]: ...
    def bench(self, runs: int = 0, min_seconds: float = 1.0,
              feeds: Optional[Mapping[str, npt.NDArray[Any]]] = None) -> BenchResult: ...

class BuildResult(TypedDict):
    model: str
    output: str
    target: str
    threads: int
    kernels: int
    steps: int
    peak_activation_bytes: int
    seconds: float

def build(onnx_path: str | os.PathLike[str], output: Optional[str | os.PathLike[str]] = None, *,
          db: Optional[str | os.PathLike[str]] = None, threads: int = 1,
          input_shapes: Optional[Mapping[str, list[int]]] = None, batch: Optional[int] = None,
          target: str = "native", key: Optional[str] = None, timing: str = "cold-weights") -> BuildResult: ...
