"""One command from nothing to a judged value model: self-play data, the fit, the gate
(``otrio value all CONFIG --fit-config FIT --workers N --output DIR``).

It is the path for a big machine lent for a few minutes (16 cores and a GPU: ``--workers
16`` and the fit config's ``device: auto``; ``configs/values/otys_gpu.yaml``): the
self-play games, which are nearly all the cost, run on every worker; the fit (on the GPU
where there is one) and the gate follow on the same folder. The folder (a ``value all``
run, :mod:`otrio.arena.run_folder`) holds ``value_all.json`` (the two configs, written
first), ``data/`` (the value-data run, resumable as any), ``model.json`` beside
``model.safetensors`` and ``gate/`` (the calibration gate's files). A second start resumes
the data where it stopped and fits and judges again (the fit is seeded, so the same data
gives the same model); its sub-folders are never followed through a link."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from otrio.arena.run_folder import RunFile, RunFolder, RunKind, register
from otrio.envs.core.errors import ConfigError
from otrio.envs.core.files import exists, read_json, write_atomic

from . import value_data, value_fit, value_report
from .config import resolve_device

CONFIG_FILE = "value_all.json"
VALUE_ALL = register(RunKind(
    name="value run", command="otrio value all", marker=CONFIG_FILE, files=(
        RunFile(CONFIG_FILE, "marker", "the value-data and fit configs of the run"),
        RunFile("data", "sub-run", "the value-data run"),
        RunFile("data/*", "sub-run", "the value-data run's files"),
        RunFile("model.*", "derived", "the model fitted on the data (fitted again on every "
                "call: the fit is seeded)"),
        RunFile("gate", "sub-run", "the model's gate"),
        RunFile("gate/*", "sub-run", "the gate's files")),
    folders=("data", "gate")))


def run_all(data_cfg: value_data.ValueDataConfig, fit_cfg: value_fit.ValueFitConfig,
            folder: str | Path, workers: int = 1, backend: str = "local",
            ray_address: str | None = None, progress: bool = True) -> dict[str, Any]:
    """Play (or resume) the self-play data into ``folder/data``, fit ``folder/model`` on
    it and write its gate into ``folder/gate``; the data summary, the model's manifest
    path and the gate's result."""
    resolve_device(fit_cfg.device, "value fit device")  # before any game is played
    run = RunFolder(VALUE_ALL, folder, "value run folder")
    run.check()
    configs = {"data": data_cfg.model_dump(), "fit": fit_cfg.model_dump()}
    with run:
        marker = run.path / CONFIG_FILE
        if exists(marker):  # read as untrusted: bounded, no link followed
            saved = read_json(marker, f"the value run's configs {marker}", run.path, ConfigError)
            if saved.get("data") != configs["data"]:
                raise ConfigError(f"{run.path} holds a value run of another value-data config; "
                                  "use another output folder")
        write_atomic(marker, (json.dumps(configs, indent=1, sort_keys=True) + "\n").encode(),
                     run.path)
        for name in ("data", "gate", "model.json", "model.safetensors"):
            run.no_link_at(name)
        data = run.sub("data")
        summary = value_data.generate(data_cfg, data, workers, backend, ray_address, progress)
        model = value_fit.fit_and_export([data], run.path / "model", fit_cfg, progress=progress)
        gate = value_report.write_gate([data], model, run.sub("gate"), fit_cfg.max_games,
                                       fit_cfg.max_gib)
    return {"data": summary, "model": model, "gate": gate}
