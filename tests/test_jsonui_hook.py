"""The JSON UI hook on its own: the periodic apply_progress messages (which the differential
cases cannot provoke without a resource that takes ten seconds), the id shown for an object,
and what is counted for the change summary."""
from __future__ import annotations

import io
import json
import time

from tfconsole.command.jsonui import JSONView
from tfconsole.walk.hooks import IdHint, object_id


def _messages(buf: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in buf.getvalue().splitlines()]


def _wait_for(buf: io.StringIO, kind: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(m["type"] == kind for m in _messages(buf)):
            return
        time.sleep(0.02)
    raise AssertionError(f"no {kind} message within {timeout}s: {buf.getvalue()}")


def test_progress_messages_between_start_and_complete() -> None:
    buf = io.StringIO()
    view = JSONView(buf)
    view.hook.interval = 0.01
    view.hook.pre_apply('module.m.null_resource.x["k"]', "update", IdHint("abc"))
    _wait_for(buf, "apply_progress")
    view.hook.post_apply('module.m.null_resource.x["k"]', "update", 0.5, None, IdHint("abc"))
    time.sleep(0.05)  # a heartbeat racing the completion must not write after it
    msgs = _messages(buf)
    kinds = [m["type"] for m in msgs]
    assert kinds[0] == "apply_start" and kinds[-1] == "apply_complete"
    assert set(kinds[1:-1]) == {"apply_progress"}
    start, progress, done = msgs[0], msgs[1], msgs[-1]
    assert start["@message"] == 'module.m.null_resource.x["k"]: Modifying... [id=abc]'
    assert start["hook"]["resource"] == {"addr": 'module.m.null_resource.x["k"]', "module": "module.m",
                                         "resource": 'null_resource.x["k"]', "implied_provider": "null",
                                         "resource_type": "null_resource", "resource_name": "x",
                                         "resource_key": "k"}
    assert progress["@message"].startswith('module.m.null_resource.x["k"]: Still modifying... [')
    assert progress["hook"]["action"] == "update" and "elapsed_seconds" in progress["hook"]
    assert done["hook"]["id_key"] == "id" and done["hook"]["id_value"] == "abc"
    assert view.hook.counts["change"] == 1


def test_errored_apply_is_not_counted() -> None:
    buf = io.StringIO()
    view = JSONView(buf)
    view.hook.pre_apply("terraform_data.a", "create", None)
    view.hook.post_apply("terraform_data.a", "create", 0.0, "failed", None)
    msgs = _messages(buf)
    assert [m["type"] for m in msgs] == ["apply_start", "apply_errored"]
    assert msgs[1]["@message"] == "terraform_data.a: Creation errored after 0s"
    assert view.hook.counts == {"add": 0, "change": 0, "remove": 0, "import": 0}


def test_object_id_follows_terraform() -> None:
    from tfconsole.lang.types import STRING
    from tfconsole.lang.values import Sensitive, TMap, Unknown

    assert object_id({"id": "i-1", "name": "n"}) == "i-1"
    assert object_id({"id": Unknown(STRING), "name": "n"}) is None  # the id case is taken, then empty
    assert object_id({"id": Sensitive("x"), "name": "n"}) is None
    named = object_id({"name": "n", "size": 1})
    assert named == "n" and named.key == "name"
    tags = TMap({"Name": "web"}, STRING)
    assert object_id({"tags": tags}) is None
    tagged = object_id({"tags": tags}, or_name=True)
    assert tagged == "web" and tagged.key == "tags.Name"
