"""Parsing the Map state and a Distributed Map's ItemReader, ItemBatcher, ResultWriter and ProcessorConfig."""

from __future__ import annotations

from typing import Callable

from sfn_emulator.asl.jsonata_expressions import ARRAY, is_jsonata
from sfn_emulator.asl.model import (
    JSONATA,
    JSONPATH,
    ItemBatcher,
    ItemReader,
    MapState,
    ReaderConfig,
    ResultWriter,
    State,
    StateMachine,
)
from sfn_emulator.asl.parsing.error_handling import ErrorHandlingFields
from sfn_emulator.asl.parsing.expressions import ExpressionFields
from sfn_emulator.asl.parsing.field_reading import TableFields
from sfn_emulator.asl.parsing.field_table import ITEM_PROCESSOR
from sfn_emulator.asl.parsing.recording import DiagnosticRecorder
from sfn_emulator.asl.parsing.rules import ITEM_READER_RESOURCES, RESULT_WRITER_RESOURCES
from sfn_emulator.asl.paths import compile_reference_path
from sfn_emulator.asl.state_io import joined
from sfn_emulator.asl.validation import Scope

# Reads a Parallel branch (BRANCH) or a Map item processor (ITEM_PROCESSOR) as a machine.
MachineReader = Callable[..., "StateMachine | None"]


class MapFields:
    """The Map state's own fields (its item processor is read as a machine by `machine`)."""

    def __init__(self, recorder: DiagnosticRecorder, expressions: ExpressionFields, table_fields: TableFields,
                 error_handling: ErrorHandlingFields, machine: MachineReader) -> None:
        self.recorder = recorder
        self.expressions = expressions
        self.table_fields = table_fields
        self.error_handling = error_handling
        self.machine = machine

    def read(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        recorder, expressions = self.recorder, self.expressions
        language = recorder.language  # the item processor's states change it
        processor_field = "ItemProcessor" if "ItemProcessor" in value else "Iterator"
        if "ItemProcessor" in value and "Iterator" in value:
            recorder.at_most_one(value, "Map", ("ItemProcessor", "Iterator"), location)
        elif processor_field not in value:
            recorder.error("These fields are required: [ItemProcessor]", location or "/")
        processor_location = f"{location}/{processor_field}"
        processor = value.get(processor_field)
        mode, execution_type = "INLINE", None
        if isinstance(processor, dict):
            mode, execution_type = self.processor_config(processor, processor_location)
        item_processor = (
            self.machine(processor, processor_location, kind=ITEM_PROCESSOR, query_language=recorder.machine_language)
            if processor is not None
            else None
        )
        recorder.language = language
        recorder.at_most_one(value, "Map", ("ItemSelector", "Parameters"), location)
        selector_field = "ItemSelector" if "ItemSelector" in value else "Parameters"
        if language == JSONATA:
            item_selector = expressions.jsonata_template(value, "ItemSelector", location)
        else:
            item_selector = expressions.template(value, selector_field, location)
        if is_jsonata(value.get("Items")):
            items = expressions.jsonata_field(value, "Items", location, ARRAY)
        else:
            items = expressions.jsonata_template(value, "Items", location)
        items_path = expressions.path(value, "ItemsPath", location, compile_reference_path, nullable=False)
        item_reader = self.item_reader(value, location, mode)
        item_batcher = self.item_batcher(value, location)
        result_writer = self.result_writer(value, location, mode)
        table_fields = self.table_fields.read("Map", value, location)
        result_selector = expressions.template(value, "ResultSelector", location)
        result_path = expressions.result_path(value, location)
        retry = self.error_handling.retriers(value, location)
        catch = self.error_handling.catchers(name, value, location, scope)
        if item_processor is None:
            return None
        return lambda **common: joined(MapState)(
            **common,
            **table_fields,
            item_processor=item_processor,
            processor_mode=mode,
            execution_type=execution_type,
            items_path=items_path,
            items=items,
            item_selector=item_selector,
            item_reader=item_reader,
            item_batcher=item_batcher,
            result_writer=result_writer,
            result_selector=result_selector,
            result_path=result_path,
            retry=retry,
            catch=catch,
        )

    def item_reader(self, value: dict, location: str, mode: str) -> ItemReader | None:
        """A Distributed Map's ItemReader: its S3 resource, Parameters and ReaderConfig."""
        reader = self.recorder.typed(value, "ItemReader", "OBJECT", location)
        if reader is None:
            return None
        here = f"{location}/ItemReader"
        if mode != "DISTRIBUTED":
            self.recorder.error("Field 'ItemReader' is not supported", location)
        self.table_fields.refuse_unknown("ItemReader", reader, here)
        resource = self.map_resource(reader, here, ITEM_READER_RESOURCES)
        config = self.recorder.typed(reader, "ReaderConfig", "OBJECT", here)
        reader_config = self.reader_config(config, f"{here}/ReaderConfig") if config is not None else ReaderConfig()
        return ItemReader(resource or "", self.expressions.arguments_or_parameters(reader, here), reader_config)

    def reader_config(self, config: dict, location: str) -> ReaderConfig:
        # One set of fields in both query languages (a JSONata ReaderConfig may give MaxItemsPath).
        self.recorder.unknown_fields(config, self.table_fields.table.fields_of("ReaderConfig", JSONPATH), location)
        return ReaderConfig(**self.table_fields.read("ReaderConfig", config, location))

    def item_batcher(self, value: dict, location: str) -> ItemBatcher | None:
        """A Distributed Map's ItemBatcher: batch sizes as integers, `...Path`s (JSONPath) or expressions
        (JSONata), and the BatchInput template every batch carries."""
        batcher = self.recorder.typed(value, "ItemBatcher", "OBJECT", location)
        if batcher is None:
            return None
        here = f"{location}/ItemBatcher"
        self.table_fields.refuse_unknown("ItemBatcher", batcher, here)
        sizes = self.table_fields.read("ItemBatcher", batcher, here)
        if self.recorder.language == JSONATA:
            batch_input = self.expressions.jsonata_template(batcher, "BatchInput", here)
        else:
            batch_input = self.expressions.template(batcher, "BatchInput", here)
        return ItemBatcher(batch_input=batch_input, **sizes)

    def result_writer(self, value: dict, location: str, mode: str) -> ResultWriter | None:
        """A Distributed Map's ResultWriter: `s3:putObject` and the Bucket and Prefix to write under."""
        writer = self.recorder.typed(value, "ResultWriter", "OBJECT", location)
        if writer is None:
            return None
        here = f"{location}/ResultWriter"
        if mode != "DISTRIBUTED":
            self.recorder.error("Field 'ResultWriter' is not supported", location)
        self.table_fields.refuse_unknown("ResultWriter", writer, here)
        writer_config = {}
        config = self.recorder.typed(writer, "WriterConfig", "OBJECT", here)
        if config is not None:
            config_location = f"{here}/WriterConfig"
            self.table_fields.refuse_unknown("WriterConfig", config, config_location)
            writer_config = self.table_fields.read("WriterConfig", config, config_location)
        # A WriterConfig alone previews the results without exporting them: no Resource is needed then.
        resource = (self.map_resource(writer, here, RESULT_WRITER_RESOURCES)
                    if config is None or "Resource" in writer else None)
        return ResultWriter(resource or "", self.expressions.arguments_or_parameters(writer, here), **writer_config)

    def map_resource(self, value: dict, location: str, allowed: tuple[str, ...]) -> str | None:
        """The Resource of an ItemReader or ResultWriter: one of the S3 actions Step Functions calls for it."""
        if "Resource" not in value:
            self.recorder.error("These fields are required: [Resource]", location)
            return None
        return self.recorder.enum(value, "Resource", allowed, location)

    def processor_config(self, processor: dict, location: str) -> tuple[str, str | None]:
        """ProcessorConfig's Mode (INLINE by default) and, for a distributed Map, its ExecutionType."""
        config = self.recorder.typed(processor, "ProcessorConfig", "OBJECT", location)
        if not isinstance(config, dict):
            return "INLINE", None
        here = f"{location}/ProcessorConfig"
        self.table_fields.refuse_unknown("ProcessorConfig", config, here)
        settings = self.table_fields.read("ProcessorConfig", config, here)
        mode, execution_type = settings.get("mode", "INLINE"), settings.get("execution_type")
        if execution_type is not None and mode != "DISTRIBUTED":
            self.recorder.error("Field 'ExecutionType' is not supported", here)
        return mode, execution_type
