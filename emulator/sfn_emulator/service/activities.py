"""Activities: CreateActivity, DescribeActivity, ListActivities, DeleteActivity, and GetActivityTask,
the worker's long poll (up to 60 seconds, as on AWS)."""

from __future__ import annotations

from typing import Any

from sfn_emulator.asl.arns import split_arn
from sfn_emulator.service import arns, quotas
from sfn_emulator.service.encryption import encryption_configuration
from sfn_emulator.service.engine_interfaces import ActivityQueues
from sfn_emulator.service.errors import ActivityDoesNotExist
from sfn_emulator.service.locking import operation, unlocked_operation
from sfn_emulator.service.names import check_name
from sfn_emulator.service.pagination import paginate
from sfn_emulator.service.registry import Registry
from sfn_emulator.service.store import ActivityRecord, Store
from sfn_emulator.service.tags import tag_dict

POLL_SECONDS = 60.0  # AWS holds GetActivityTask open up to 60 s when no task is waiting


def _activity(store: Store, activity_arn: str) -> ActivityRecord:
    arns.activity(activity_arn)
    record = store.activities.get(activity_arn)
    if record is None:
        raise ActivityDoesNotExist(f"Activity Does Not Exist: '{activity_arn}'")
    return record


class RegisteredActivities:
    """The activities the registry's stores hold, as the engine asks of them when an execution
    schedules an activity task (`engine.ActivityDirectory`). Built over the registry before the
    engine, which takes it by constructor; the service is then built over the same registry."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry

    def exists_for(self, activity_arn: str, execution_arn: str) -> bool:
        """Called on the engine's thread: reads only, without the service lock. Only an activity of
        the execution's own account and region exists for it (`ownership`)."""
        execution = split_arn(execution_arn)
        store = self._registry.existing_store(execution.account, execution.region) if execution is not None else None
        return store is not None and activity_arn in store.activities


class Activities:
    """The activity operations, over the registry's stores and the engine's activity queues."""

    def __init__(self, registry: Registry, queues: ActivityQueues) -> None:
        self.registry = registry
        self._queues = queues

    @operation
    def create_activity(
        self,
        store: Store,
        *,
        name: str,
        tags: list[dict[str, str]] | None = None,
        encryptionConfiguration: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        check_name(name)
        encryption = encryption_configuration(encryptionConfiguration)
        arn = arns.build(store.region, store.account, arns.ACTIVITY, name)
        tag_values = tag_dict(tags or [], arn)
        record = store.activities.get(arn)
        if record is None:  # idempotent by name: a repeat returns the activity (its tags ignored, as on AWS)
            quotas.check_new_activity(store)
            record = ActivityRecord(arn, name, self.registry.now(), encryption, tag_values)
            store.activities[arn] = record
        return {"activityArn": record.arn, "creationDate": record.creation_date}

    @operation
    def describe_activity(self, store: Store, *, activityArn: str) -> dict[str, Any]:
        record = _activity(store, activityArn)
        return {"activityArn": record.arn, "name": record.name, "creationDate": record.creation_date,
                "encryptionConfiguration": record.encryption_configuration}

    @operation
    def list_activities(self, store: Store, *, maxResults: int | None = None, nextToken: str | None = None) -> dict[str, Any]:
        by_name = sorted(store.activities.values(), key=lambda record: record.name)
        page, token = paginate(by_name, lambda record: record.name, scope="activities",
                               max_results=maxResults, next_token=nextToken, now=self.registry.now())
        items = [{"activityArn": r.arn, "name": r.name, "creationDate": r.creation_date} for r in page]
        return {"activities": items, **({"nextToken": token} if token else {})}

    @operation
    def delete_activity(self, store: Store, *, activityArn: str) -> dict[str, Any]:
        arns.activity(activityArn)
        if store.activities.pop(activityArn, None) is not None:  # deleting what is not there succeeds (AWS)
            self._queues.forget_activity(activityArn)
        return {}

    @unlocked_operation
    def get_activity_task(self, store: Store, *, activityArn: str, workerName: str | None = None) -> dict[str, Any]:
        with self.registry.locked(store):
            _activity(store, activityArn)
        task = self._queues.poll_activity(activityArn, workerName, POLL_SECONDS)
        if task is None:
            return {}  # AWS answers a poll that found nothing with no token and no input
        return {"taskToken": task.token, "input": task.input}
