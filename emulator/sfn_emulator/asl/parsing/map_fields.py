"""Parsing the Map state and a Distributed Map's ItemReader, ItemBatcher, ResultWriter and ProcessorConfig."""

from __future__ import annotations

from typing import Any, Callable

from sfn_emulator.asl.fields import (
    MAX_CONCURRENCY_PATH,
    MAX_INPUT_BYTES_PER_BATCH_PATH,
    MAX_ITEMS_PATH,
    MAX_ITEMS_PER_BATCH_PATH,
    TOLERATED_FAILURE_COUNT_PATH,
    TOLERATED_FAILURE_PERCENTAGE_PATH,
    one_field,
)
from sfn_emulator.asl.jsonata_expressions import (
    ARRAY,
    INTEGER,
    NON_NEGATIVE_INTEGER,
    NUMBER,
    POSITIVE_INTEGER,
    is_jsonata,
)
from sfn_emulator.asl.model import JSONATA, ItemBatcher, ItemReader, MapState, ReaderConfig, ResultWriter, State
from sfn_emulator.asl.parsing.error_handling import ErrorHandlingFields
from sfn_emulator.asl.state_io import joined
from sfn_emulator.asl.parsing.rules import (
    PROCESSOR_CONFIG_FIELDS,
    ITEM_READER_FIELDS,
    JSONATA_ITEM_READER_FIELDS,
    READER_CONFIG_FIELDS,
    READER_INPUT_TYPES,
    CSV_DELIMITERS,
    MAX_ITEMS,
    ITEM_READER_RESOURCES,
    ITEM_BATCHER_FIELDS,
    JSONATA_ITEM_BATCHER_FIELDS,
    RESULT_WRITER_FIELDS,
    JSONATA_RESULT_WRITER_FIELDS,
    WRITER_CONFIG_FIELDS,
    RESULT_WRITER_RESOURCES,
    PROCESSOR_MODES,
    EXECUTION_TYPES,
    expected_type,
)
from sfn_emulator.asl.paths import compile_reference_path
from sfn_emulator.asl.validation import Scope


class MapFields(ErrorHandlingFields):
    """The Map state's own fields (its item processor is parsed as a machine)."""

    def _map(self, name: str, value: dict, location: str, scope: Scope) -> Callable[..., State] | None:
        language = self.language  # the item processor's states change it
        processor_field = "ItemProcessor" if "ItemProcessor" in value else "Iterator"
        if "ItemProcessor" in value and "Iterator" in value:
            self.at_most_one(value, "Map", ("ItemProcessor", "Iterator"), location)
        elif processor_field not in value:
            self.error("These fields are required: [ItemProcessor]", location or "/")
        processor_location = f"{location}/{processor_field}"
        processor = value.get(processor_field)
        mode, execution_type = "INLINE", None
        if isinstance(processor, dict):
            mode, execution_type = self.processor_config(processor, processor_location)
        item_processor = (
            self.machine(processor, processor_location, kind="processor", query_language=self.machine_language)
            if processor is not None
            else None
        )
        self.language = language
        self.at_most_one(value, "Map", ("ItemSelector", "Parameters"), location)
        selector_field = "ItemSelector" if "ItemSelector" in value else "Parameters"
        if self.language == JSONATA:
            item_selector = self.jsonata_template(value, "ItemSelector", location)
        else:
            item_selector = self.template(value, selector_field, location)
        if is_jsonata(value.get("Items")):
            items = self.jsonata_field(value, "Items", location, ARRAY)
        else:
            items = self.jsonata_template(value, "Items", location)
        items_path = self.path(value, "ItemsPath", location, compile_reference_path, nullable=False)
        item_reader = self.item_reader(value, location, mode)
        item_batcher = self.item_batcher(value, location)
        result_writer = self.result_writer(value, location, mode)
        self.at_most_one(value, "Map", ("MaxConcurrency", "MaxConcurrencyPath"), location)
        max_concurrency_expression = self.jsonata_field(value, "MaxConcurrency", location, NON_NEGATIVE_INTEGER)
        tolerated_percentage_expression = self.jsonata_field(value, "ToleratedFailurePercentage", location, NUMBER)
        tolerated_count_expression = self.jsonata_field(value, "ToleratedFailureCount", location, INTEGER)
        max_concurrency = tolerated_percentage = tolerated_count = None
        if max_concurrency_expression is None:
            max_concurrency = self.integer(value, "MaxConcurrency", location, minimum=0)
        max_concurrency_path = self.path(value, "MaxConcurrencyPath", location, compile_reference_path, nullable=False)
        self.at_most_one(value, "Map", ("ToleratedFailurePercentage", "ToleratedFailurePercentagePath"), location)
        if tolerated_percentage_expression is None:
            tolerated_percentage = self.number(value, "ToleratedFailurePercentage", location, minimum=0, maximum=100)
        tolerated_percentage_path = self.path(
            value, "ToleratedFailurePercentagePath", location, compile_reference_path, nullable=False
        )
        self.at_most_one(value, "Map", ("ToleratedFailureCount", "ToleratedFailureCountPath"), location)
        if tolerated_count_expression is None:
            tolerated_count = self.integer(value, "ToleratedFailureCount", location, minimum=0)
        tolerated_count_path = self.path(value, "ToleratedFailureCountPath", location, compile_reference_path, nullable=False)
        label = self.typed(value, "Label", "STRING", location)
        result_selector = self.template(value, "ResultSelector", location)
        result_path = self.result_path(value, location)
        retry = self.retriers(value, location)
        catch = self.catchers(name, value, location, scope)
        if item_processor is None:
            return None
        return lambda **common: joined(MapState)(
            **common,
            item_processor=item_processor,
            processor_mode=mode,
            execution_type=execution_type,
            items_path=items_path,
            items=items,
            item_selector=item_selector,
            item_reader=item_reader,
            item_batcher=item_batcher,
            result_writer=result_writer,
            max_concurrency=one_field(max_concurrency or 0, max_concurrency_path, max_concurrency_expression,
                                      MAX_CONCURRENCY_PATH),
            tolerated_failure_percentage=one_field(tolerated_percentage, tolerated_percentage_path,
                                                   tolerated_percentage_expression, TOLERATED_FAILURE_PERCENTAGE_PATH),
            tolerated_failure_count=one_field(tolerated_count, tolerated_count_path, tolerated_count_expression,
                                              TOLERATED_FAILURE_COUNT_PATH),
            label=label,
            result_selector=result_selector,
            result_path=result_path,
            retry=retry,
            catch=catch,
        )

    def item_reader(self, value: dict, location: str, mode: str) -> ItemReader | None:
        """A Distributed Map's ItemReader: its S3 resource, Parameters and ReaderConfig."""
        reader = self.typed(value, "ItemReader", "OBJECT", location)
        if reader is None:
            return None
        here = f"{location}/ItemReader"
        if mode != "DISTRIBUTED":
            self.error("Field 'ItemReader' is not supported", location)
        jsonata = self.language == JSONATA
        self.unknown_fields(reader, JSONATA_ITEM_READER_FIELDS if jsonata else ITEM_READER_FIELDS, here)
        resource = self.map_resource(reader, here, ITEM_READER_RESOURCES)
        config = self.typed(reader, "ReaderConfig", "OBJECT", here)
        reader_config = self.reader_config(config, f"{here}/ReaderConfig") if config is not None else ReaderConfig()
        return ItemReader(resource or "", self.arguments_or_parameters(reader, here), reader_config)

    def reader_config(self, config: dict, location: str) -> ReaderConfig:
        self.unknown_fields(config, READER_CONFIG_FIELDS, location)
        self.at_most_one(config, "ReaderConfig", ("MaxItems", "MaxItemsPath"), location)
        headers = self.typed(config, "CSVHeaders", "ARRAY", location) or []
        max_items_expression = self.jsonata_field(config, "MaxItems", location, INTEGER)
        if not all(isinstance(header, str) for header in headers):
            self.error(expected_type("STRING"), f"{location}/CSVHeaders")
        return ReaderConfig(
            input_type=self.enum(config, "InputType", READER_INPUT_TYPES, location),
            csv_header_location=self.enum(config, "CSVHeaderLocation", ("FIRST_ROW", "GIVEN"), location),
            csv_headers=tuple(str(header) for header in headers),
            csv_delimiter=self.enum(config, "CSVDelimiter", CSV_DELIMITERS, location) or "COMMA",
            max_items=one_field(
                self.integer(config, "MaxItems", location, minimum=0, maximum=MAX_ITEMS)
                if max_items_expression is None else None,
                self.path(config, "MaxItemsPath", location, compile_reference_path, nullable=False),
                max_items_expression,
                MAX_ITEMS_PATH,
            ),
            items_pointer=self.typed(config, "ItemsPointer", "STRING", location),
            transformation=self.enum(config, "Transformation", ("NONE", "LOAD_AND_FLATTEN"), location) or "NONE",
            manifest_type=self.enum(config, "ManifestType", ("ATHENA_DATA", "S3_INVENTORY"), location),
        )

    def item_batcher(self, value: dict, location: str) -> ItemBatcher | None:
        """A Distributed Map's ItemBatcher: batch sizes as integers, `...Path`s (JSONPath) or expressions
        (JSONata), and the BatchInput template every batch carries."""
        batcher = self.typed(value, "ItemBatcher", "OBJECT", location)
        if batcher is None:
            return None
        here = f"{location}/ItemBatcher"
        jsonata = self.language == JSONATA
        self.unknown_fields(batcher, JSONATA_ITEM_BATCHER_FIELDS if jsonata else ITEM_BATCHER_FIELDS, here)
        sizes: dict[str, Any] = {}
        for field, name, rule in (("MaxItemsPerBatch", "max_items_per_batch", MAX_ITEMS_PER_BATCH_PATH),
                                  ("MaxInputBytesPerBatch", "max_input_bytes_per_batch", MAX_INPUT_BYTES_PER_BATCH_PATH)):
            self.at_most_one(batcher, "ItemBatcher", (field, f"{field}Path"), here)
            expression = self.jsonata_field(batcher, field, here, POSITIVE_INTEGER)
            literal = self.integer(batcher, field, here, minimum=1) if expression is None else None
            path = self.path(batcher, f"{field}Path", here, compile_reference_path, nullable=False)
            sizes[name] = one_field(literal, path, expression, rule)
        if jsonata:
            batch_input = self.jsonata_template(batcher, "BatchInput", here)
        else:
            batch_input = self.template(batcher, "BatchInput", here)
        return ItemBatcher(batch_input=batch_input, **sizes)

    def result_writer(self, value: dict, location: str, mode: str) -> ResultWriter | None:
        """A Distributed Map's ResultWriter: `s3:putObject` and the Bucket and Prefix to write under."""
        writer = self.typed(value, "ResultWriter", "OBJECT", location)
        if writer is None:
            return None
        here = f"{location}/ResultWriter"
        if mode != "DISTRIBUTED":
            self.error("Field 'ResultWriter' is not supported", location)
        jsonata = self.language == JSONATA
        self.unknown_fields(writer, JSONATA_RESULT_WRITER_FIELDS if jsonata else RESULT_WRITER_FIELDS, here)
        transformation = output_type = None
        config = self.typed(writer, "WriterConfig", "OBJECT", here)
        if config is not None:
            config_location = f"{here}/WriterConfig"
            self.unknown_fields(config, WRITER_CONFIG_FIELDS, config_location)
            transformation = self.enum(config, "Transformation", ("NONE", "COMPACT", "FLATTEN"), config_location)
            output_type = self.enum(config, "OutputType", ("JSON", "JSONL"), config_location)
        # A WriterConfig alone previews the results without exporting them: no Resource is needed then.
        resource = (self.map_resource(writer, here, RESULT_WRITER_RESOURCES)
                    if config is None or "Resource" in writer else None)
        return ResultWriter(resource or "", self.arguments_or_parameters(writer, here),
                            transformation=transformation, output_type=output_type)

    def map_resource(self, value: dict, location: str, allowed: tuple[str, ...]) -> str | None:
        """The Resource of an ItemReader or ResultWriter: one of the S3 actions Step Functions calls for it."""
        if "Resource" not in value:
            self.error("These fields are required: [Resource]", location)
            return None
        return self.enum(value, "Resource", allowed, location)

    def processor_config(self, processor: dict, location: str) -> tuple[str, str | None]:
        """ProcessorConfig's Mode (INLINE by default) and, for a distributed Map, its ExecutionType."""
        config = self.typed(processor, "ProcessorConfig", "OBJECT", location)
        if not isinstance(config, dict):
            return "INLINE", None
        here = f"{location}/ProcessorConfig"
        self.unknown_fields(config, PROCESSOR_CONFIG_FIELDS, here)
        mode = self.enum(config, "Mode", PROCESSOR_MODES, here) or "INLINE"
        execution_type = self.enum(config, "ExecutionType", EXECUTION_TYPES, here)
        if execution_type is not None and mode != "DISTRIBUTED":
            self.error("Field 'ExecutionType' is not supported", here)
        return mode, execution_type
