"""tools/teacher_agreement.py counts agreement on the student's own decisions: a teacher
that is the student agrees with it and with itself every time; a random student does not."""

import importlib.util
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "teacher_agreement.py"


def _tool():
    spec = importlib.util.spec_from_file_location("teacher_agreement", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_student_that_is_its_teacher_agrees_every_time():
    net = "net:agents/pretrained/oceanos_net.json"
    out = _tool().measure("oceanos_v0", 2, 2, net, [net, "random"])
    assert out["decisions"] > 20 and out["teacher_self_agreement"] == 1.0
    assert out["students"][net] == {"with_first": 1.0, "with_either": 1.0}
    assert out["students"]["random"]["with_first"] < 0.8
