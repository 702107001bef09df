import os
from typing import Any, Callable, Iterator, Mapping, Optional, TypedDict

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

class TuneProgress(TypedDict, total=False):
    trials: int
    budget: int
    estimated_ms: float
    elapsed_s: float
    resumed: bool
    untuned_tasks: int
    task: str
    task_trials: int
    task_best_ms: float

def tune_model(onnx_path: str | os.PathLike[str], *, db: str | os.PathLike[str] = "tunefarm.db", trials: int = 2000,
               threads: int = 1, input_shapes: Optional[Mapping[str, list[int]]] = None, batch: Optional[int] = None,
               target: str = "native", layouts: str = "per-conv", scheduler: str = "gradient", tuner: str = "xgb",
               cold_inputs: str = "weights", time_limit_s: float = 0, seed: int = 1,
               progress: Optional[Callable[[dict[str, Any]], None]] = None, key: Optional[str] = None,
               client: Optional[Client | str] = None, priority: int = 1) -> dict[str, Any]: ...

class Client:
    def __init__(self, address: str = "127.0.0.1:9190", *, token_file: Optional[str | os.PathLike[str]] = None,
                 tls_ca: Optional[str | os.PathLike[str]] = None) -> None: ...
    @property
    def address(self) -> str: ...
    def submit(self, workloads: Optional[list[dict[str, Any]]] = None, *,
               job: Optional[dict[str, Any] | str | os.PathLike[str]] = None, key: Optional[str] = None,
               trials: Optional[int] = None, tuner: Optional[str] = None, priority: Optional[int] = None,
               seed: Optional[int] = None, measure: Optional[dict[str, Any]] = None) -> dict[str, Any]: ...
    def status(self, job_id: int) -> dict[str, Any]: ...
    def jobs(self, active: bool = False) -> list[dict[str, Any]]: ...
    def follow(self, job_id: int) -> Iterator[dict[str, Any]]: ...
    def cancel(self, job_id: int) -> dict[str, Any]: ...
    def devices(self, key: str = "") -> list[dict[str, Any]]: ...
    def best(self, key: str, op: str, shape: list[int], timing: str = "") -> Optional[dict[str, Any]]: ...
