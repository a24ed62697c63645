"""How the Ray engine names the loss of an actor, from Ray's own exceptions (no cluster needed):
a preempted node, a lost node, the OOM killer, any other death."""

from __future__ import annotations

from ray.core.generated.common_pb2 import ActorDiedErrorContext, NodeDeathInfo
from ray.exceptions import ActorDiedError, ObjectLostError

from tooldeck.batch.ray_engine import brief, loss_of

ACTOR_ID = bytes(16)


def died(message: str, reason: int | None = None) -> ActorDiedError:
    context = ActorDiedErrorContext(
        error_message=message,
        class_name="BatchActor",
        actor_id=ACTOR_ID,
        pid=4242,
        node_ip_address="10.0.0.7",
    )
    if reason is not None:
        context.node_death_info.CopyFrom(
            NodeDeathInfo(reason=reason, reason_message="spot instance reclaimed")
        )
    return ActorDiedError(context)


def test_a_preempted_node_is_told_as_preemption() -> None:
    exc = died("The actor died because its node has died.", NodeDeathInfo.AUTOSCALER_DRAIN_PREEMPTED)
    loss = loss_of(exc, "ray-2")
    assert loss.cause == "preempted" and loss.worker == "ray-2"
    assert loss.detail.startswith("Ray actor ray-2 was lost while running this item (its node was preempted)")


def test_a_lost_node_an_oom_kill_and_other_deaths_are_told_apart() -> None:
    node = died(
        "The actor died because its node has died. Node Id: 036a\n"
        "\tthe actor's node was terminated expectedly: received SIGTERM"
    )
    assert loss_of(node, "ray-1").cause == "node_lost"
    oom = died(
        "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
        "Worker exit detail: Task was killed due to the node running low on memory."
    )
    assert loss_of(oom, "ray-1").cause == "oom"
    crash = died("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR")
    assert loss_of(crash, "ray-1").cause == "worker_died"
    assert loss_of(ObjectLostError("ab" * 14, "owner", "call site"), "ray-1").cause == "node_lost"


def test_the_detail_keeps_rays_words_without_its_id_lines() -> None:
    text = brief(died("The actor died because its node has died."))
    assert "The actor died because its node has died." in text
    assert "pid:" not in text and "class_name" not in text and "actor_id" not in text
