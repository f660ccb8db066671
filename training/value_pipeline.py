"""One command from nothing to a judged value model: self-play data, the fit, the gate
(``otrio value all CONFIG --fit-config FIT --workers N --output DIR``).

It is the path for a big machine lent for a few minutes (16 cores and a GPU: ``--workers
16`` and the fit config's ``device: auto``; ``configs/values/otys_gpu.yaml``): the
self-play games, which are nearly all the cost, run on every worker; the fit (on the GPU
where there is one) and the gate follow on the same folder. The folder holds ``data/``
(the value-data run, resumable as any), ``model.json`` beside ``model.safetensors`` and
``gate/`` (the calibration gate's files). A second start resumes the data where it
stopped and fits and judges again (the fit is seeded, so the same data gives the same
model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from otrio.arena.outputs import make_output_folder

from . import value_data, value_fit, value_report
from .config import resolve_device


def run_all(data_cfg: value_data.ValueDataConfig, fit_cfg: value_fit.ValueFitConfig,
            folder: str | Path, workers: int = 1, backend: str = "local",
            ray_address: str | None = None, progress: bool = True) -> dict[str, Any]:
    """Play (or resume) the self-play data into ``folder/data``, fit ``folder/model`` on
    it and write its gate into ``folder/gate``; the data summary, the model's manifest
    path and the gate's result."""
    resolve_device(fit_cfg.device, "value fit device")  # before any game is played
    folder = make_output_folder(folder, "value run folder")
    data = folder / "data"
    summary = value_data.generate(data_cfg, data, workers, backend, ray_address, progress)
    model = value_fit.fit_and_export([data], folder / "model", fit_cfg, progress=progress)
    gate = value_report.write_gate([data], model, folder / "gate", fit_cfg.max_games,
                                   fit_cfg.max_gib)
    return {"data": summary, "model": model, "gate": gate}
