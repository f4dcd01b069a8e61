"""Puts ggml's hand-written wasm SIMD kernels into wllama's shipped runtime, in place of the
generic C kernels it was built with (see docs/upstream/wasm-simd-kernels.md for why it has
them).

Inputs: the runtime (`wllama.wasm`, memory64, threads) and a relocatable object compiled from
ggml's `arch/wasm/quants.c` for wasm64 (scripts/lib/build_runtime.sh makes both from registry
packages). This script is the linker for that one object:

- each function the object defines replaces the runtime's function of the same name, in place,
  so every caller and table entry keeps its index; the types must match exactly;
- the object's data (two 2 KB tables) goes at the start of the runtime's heap, which moves up
  by that much: the heap's first address is the initial value of `sbrk`'s pointer, which lives
  in a data segment and is rewritten here;
- references are resolved through the object's relocations: `__stack_pointer` becomes the
  runtime's stack pointer, `ggml_table_f32_f16` (the fp16 lookup table, filled by
  `ggml_cpu_init`) the runtime's table, found where its own kernels read it;
- a kernel that also takes two rows against two columns (TWO_BY_TWO) gets `nrows` 2 in its
  type's entry of ggml's CPU type table, found by its function pointers (table slots).

With --harness, a second file is written for the kernel-equivalence test: the same runtime,
plus the shipped bodies appended as `shipped_<name>`, and both versions exported.

Anything unexpected (a relocation kind, a name, a type, a layout) stops the script: a runtime
that was not understood is never written.
"""

import argparse
import json
import re
import struct
import sys
from collections import Counter

from wasm_binary import (
    IMPORT_FUNC,
    IMPORT_GLOBAL,
    IMPORT_MEMORY,
    SECTION_CODE,
    SECTION_CUSTOM,
    SECTION_DATA,
    SECTION_DATACOUNT,
    SECTION_ELEMENT,
    SECTION_EXPORT,
    SECTION_FUNCTION,
    SECTION_GLOBAL,
    SECTION_IMPORT,
    SECTION_TYPE,
    SYMBOL_DATA,
    SYMBOL_FUNCTION,
    SYMBOL_GLOBAL,
    Reader,
    code_with_offsets,
    const_i64,
    encode_code,
    encode_data,
    encode_export,
    encode_imports,
    padded_sleb,
    padded_uleb,
    read_code,
    read_const_expr,
    read_data,
    read_exports,
    read_function_names,
    read_function_types,
    read_globals,
    read_imports,
    read_relocations,
    read_segment_info,
    read_sections,
    read_symbols,
    read_types,
    section,
    sleb,
    uleb,
    vector,
    with_function_names,
    write_module,
)

# The kernels this splice is for: ggml 0.26's arch/wasm/quants.c defines exactly these.
KERNELS = [
    "quantize_row_q8_0",
    "quantize_row_q8_1",
    "quantize_row_q8_K",
    "ggml_vec_dot_q4_0_q8_0",
    "ggml_vec_dot_q4_1_q8_1",
    "ggml_vec_dot_q5_0_q8_0",
    "ggml_vec_dot_q5_1_q8_1",
    "ggml_vec_dot_q8_0_q8_0",
    "ggml_vec_dot_q2_K_q8_K",
    "ggml_vec_dot_q3_K_q8_K",
    "ggml_vec_dot_q4_K_q8_K",
    "ggml_vec_dot_q5_K_q8_K",
    "ggml_vec_dot_q6_K_q8_K",
]

# Kernels of the object that also take two rows against two columns (`nrc == 2`), and the
# quantizer that is the same type's `from_float`: ggml's matrix product asks for that only of a
# type whose `nrows` is 2 in its CPU type table (`type_traits_cpu`), which the splice sets.
TWO_BY_TWO = {"ggml_vec_dot_q5_0_q8_0": "quantize_row_q5_0", "ggml_vec_dot_q6_K_q8_K": "quantize_row_q6_K",
              "ggml_vec_dot_q4_K_q8_K": "quantize_row_q4_K"}

FP16_TABLE = "ggml_table_f32_f16"
FP16_TABLE_BYTES = 4 << 16

# Relocation kinds this object uses (tool-conventions' Linking.md numbering) and their field width.
FUNCTION_INDEX_LEB, TYPE_INDEX_LEB, GLOBAL_INDEX_LEB = 0, 6, 7
MEMORY_ADDR_LEB64, MEMORY_ADDR_SLEB64 = 14, 15

LEB = rb"((?:[\x80-\xff])*[\x00-\x7f])"
# memory.init of a passive segment in __wasm_init_memory: i64.const ADDR, i32.const 0,
# i32.const LEN, memory.init SEG 0.
MEMORY_INIT = re.compile(rb"\x42" + LEB + rb"\x41\x00\x41" + LEB + rb"\xfc\x08" + LEB + rb"\x00", re.S)
# sbrk's read of its pointer: i64.const ADDR, i64.atomic.load.
SBRK_LOAD = re.compile(rb"\x42" + LEB + rb"\xfe\x11", re.S)
# f32.load with a constant offset (align 2): how the shipped kernels read the fp16 table.
F32_LOAD = re.compile(rb"\x2a\x02" + LEB, re.S)


def fail(message):
    sys.exit(f"splice_kernels: {message}")


def leb_value(raw, signed=False):
    reader = Reader(raw)
    return reader.sleb() if signed else reader.uleb()


class Runtime:
    """The parts of the linked runtime the splice reads and rewrites."""

    def __init__(self, data):
        self.sections = read_sections(data)
        self.imports = read_imports(self.payload(SECTION_IMPORT))
        self.imported_functions = sum(1 for i in self.imports if i[2] == IMPORT_FUNC)
        self.imported_globals = sum(1 for i in self.imports if i[2] == IMPORT_GLOBAL)
        self.types = read_types(self.payload(SECTION_TYPE))
        self.function_types = read_function_types(self.payload(SECTION_FUNCTION))
        self.bodies = read_code(self.payload(SECTION_CODE))
        self.globals = read_globals(self.payload(SECTION_GLOBAL))
        self.exports = read_exports(self.payload(SECTION_EXPORT))
        self.segments = read_data(self.payload(SECTION_DATA))
        self.names = read_function_names(self.sections)
        self.by_name = {}
        for index, name in self.names.items():
            self.by_name.setdefault(name, index)
        self.name_counts = Counter(self.names.values())
        if any(s[0] != 1 for s in self.segments):
            fail("the runtime has active data segments; a threaded build initialises memory once")

    def payload(self, kind):
        found = section(self.sections, kind)
        if found is None:
            fail(f"the runtime has no section {kind}")
        return found.payload

    def function(self, name):
        if name not in self.by_name:
            fail(f"the runtime has no function named {name}")
        if self.name_counts[name] != 1:
            fail(f"the runtime names {self.name_counts[name]} functions {name}")
        return self.by_name[name]

    def body(self, name):
        return self.bodies[self.function(name) - self.imported_functions]

    def type_of(self, index):
        return self.types[self.function_types[index - self.imported_functions]]

    def stack_pointer(self):
        """The global emscripten_stack_get_current returns (no locals, global.get N, end)."""
        body = self.body("emscripten_stack_get_current")
        if len(body) < 4 or body[0] != 0 or body[1] != 0x23 or body[-1] != 0x0B:
            fail("emscripten_stack_get_current is not `global.get N`")
        index = leb_value(body[2:-1])
        valtype, mutable, init = self.globals[index - self.imported_globals]
        if valtype != 0x7E or not mutable:
            fail("the stack pointer is not a mutable i64 (not a memory64 build?)")
        return index, const_i64(init)

    def segment_addresses(self):
        body = self.body("__wasm_init_memory")
        addresses = {}
        for addr, length, segment in MEMORY_INIT.findall(body):
            segment = leb_value(segment)
            if leb_value(length) != len(self.segments[segment][3]):
                fail(f"memory.init of segment {segment} copies a length other than the segment's")
            addresses[segment] = leb_value(addr, signed=True)
        if len(addresses) != len(self.segments):
            fail(f"found the address of {len(addresses)} of {len(self.segments)} data segments")
        return addresses

    def heap_pointer(self):
        """(segment, offset in it) of sbrk's pointer, whose first value is the heap's start."""
        loads = {leb_value(a, signed=True) for a in SBRK_LOAD.findall(self.body("sbrk"))}
        if len(loads) != 1:
            fail(f"sbrk reads its pointer from {len(loads)} addresses, not one")
        (address,) = loads
        for segment, start in self.segment_addresses().items():
            contents = self.segments[segment][3]
            if start <= address and address + 8 <= start + len(contents):
                return segment, address - start
        fail("sbrk's pointer is not in an initialised data segment")

    def heap_start_is_known_only_to_sbrk(self, heap_start, segment, offset):
        """Moving the heap's start by rewriting sbrk's pointer is enough only if nothing else
        holds that address: no other initialised data, and no code but the constructor that
        sets the stack's base (the stack grows down from the same address)."""
        value = struct.pack("<Q", heap_start)
        holders = [
            (index, contents.find(value))
            for index, (_, _, _, contents) in enumerate(self.segments)
            if value in contents
        ]
        if holders != [(segment, offset)] or self.segments[segment][3].count(value) != 1:
            fail(f"the heap's start {heap_start} is held in data at {holders}, not only by sbrk")
        constant = b"\x42" + sleb(heap_start)
        in_code = self.payload(SECTION_CODE).count(constant)
        if in_code != self.body("__wasm_call_ctors").count(constant) or in_code > 1:
            fail(f"the heap's start {heap_start} is a constant in code other than the stack's setup")

    def table_slots(self):
        """Function index -> its slot in the function table (the one active element segment
        the linker writes; a function pointer in memory is its slot)."""
        reader = Reader(self.payload(SECTION_ELEMENT))
        if reader.uleb() != 1 or reader.uleb() != 0:
            fail("the function table is not one active element segment of function indices")
        first = const_i64(read_const_expr(reader))
        slots = {}
        for position in range(reader.uleb()):
            slots.setdefault(reader.uleb(), first + position)
        return slots

    def type_traits_rows(self, vec_dot, from_float):
        """(segment, offset) of `nrows` in the CPU type table's entry whose `vec_dot` and
        `from_float` are these functions. The entry (wasm64): from_float and vec_dot as 8-byte
        table slots, vec_dot_type as 4 bytes and 4 of padding, nrows as 8."""
        slots = self.table_slots()
        entry = struct.pack("<QQ", slots[self.function(from_float)], slots[self.function(vec_dot)])
        found = []
        for index, (_, _, _, contents) in enumerate(self.segments):
            at = contents.find(entry)
            while at >= 0:
                found.append((index, at))
                at = contents.find(entry, at + 1)
        if len(found) != 1:
            fail(f"the type table entry of {vec_dot} is at {found}, not in one place")
        segment, at = found[0]
        contents = self.segments[segment][3]
        if len(contents) < at + 32:
            fail(f"the type table entry of {vec_dot} is cut off")
        vec_dot_type, padding, rows = struct.unpack_from("<IIq", contents, at + 16)
        if vec_dot_type >= 64 or padding != 0 or rows != 1:
            fail(f"the entry of {vec_dot} reads vec_dot_type {vec_dot_type}, nrows {rows}: unknown layout")
        return segment, at + 24

    def memory_minimum(self):
        for _, _, kind, desc in self.imports:
            if kind == IMPORT_MEMORY:
                return desc[1] << 16
        fail("the runtime imports no memory")

    def fp16_table(self):
        """Where the shipped kernels read ggml_table_f32_f16: the one large f32.load offset
        they all share."""
        offsets = Counter()
        for name in ("ggml_vec_dot_q4_0_q8_0", "ggml_vec_dot_q8_0_q8_0", "ggml_vec_dot_q4_1_q8_1"):
            for raw in F32_LOAD.findall(self.body(name)):
                value = leb_value(raw)
                if value >= 1 << 20:
                    offsets[value] += 1
        if len(offsets) != 1:
            fail(f"the shipped kernels read the fp16 table at {sorted(offsets)}, not one address")
        (address,) = offsets
        return address


class KernelObject:
    """The relocatable object's functions, data, symbols and code relocations."""

    def __init__(self, data):
        sections = read_sections(data)
        self.imports = read_imports(section(sections, SECTION_IMPORT).payload)
        self.imported_functions = sum(1 for i in self.imports if i[2] == IMPORT_FUNC)
        self.types = read_types(section(sections, SECTION_TYPE).payload)
        self.function_types = read_function_types(section(sections, SECTION_FUNCTION).payload)
        code = section(sections, SECTION_CODE)
        self.code_index = sections.index(code)
        self.bodies = code_with_offsets(code.payload)
        data = section(sections, SECTION_DATA)
        self.segments = read_data(data.payload) if data else []
        linking = section(sections, SECTION_CUSTOM, "linking")
        self.symbols = read_symbols(linking.payload, self.imports)
        self.relocations = []
        for custom in sections:
            if custom.kind != SECTION_CUSTOM or not (custom.name or "").startswith("reloc."):
                continue
            if custom.name == "reloc.CODE":
                target, entries = read_relocations(custom.payload)
                if target != self.code_index:
                    fail("reloc.CODE names a section other than the code section")
                self.relocations = entries
            elif not custom.name.startswith("reloc..debug"):
                # Pointers inside the data (reloc.DATA) would need relocating too.
                fail(f"the object has {custom.name}, which this splice does not apply")
        for alignment, flags in read_segment_info(linking.payload):
            if alignment > 4 or flags != 0:
                fail(f"a data segment wants alignment 2^{alignment} or flags {flags}")

    def defined_functions(self):
        """(name, function index) of every function the object defines."""
        return [
            (s.name, s.index)
            for s in self.symbols
            if s.kind == SYMBOL_FUNCTION and not s.undefined and s.index >= self.imported_functions
        ]


def place_data(kernels, base):
    """Addresses of the object's data segments laid out from `base`, and the end (16-aligned)."""
    addresses, cursor = [], base
    for _flags, _memory, _offset, contents in kernels.segments:
        cursor = (cursor + 15) & ~15
        addresses.append(cursor)
        cursor += len(contents)
    return addresses, (cursor + 15) & ~15


def unshared_memory(imports):
    """The imports with the memory no longer shared: a test page need not be cross-origin
    isolated to run the harness (atomic instructions are valid on unshared memory)."""
    out = []
    for module, field, kind, desc in imports:
        if kind == IMPORT_MEMORY:
            flags, minimum, maximum = desc
            desc = (flags & ~2, minimum, maximum)
        out.append((module, field, kind, desc))
    return out


def splice(runtime_bytes, kernel_bytes, harness=False):
    runtime = Runtime(runtime_bytes)
    kernels = KernelObject(kernel_bytes)
    stack_global, heap_start = runtime.stack_pointer()
    pointer_segment, pointer_offset = runtime.heap_pointer()
    pointer_bytes = runtime.segments[pointer_segment][3]
    (first_heap,) = struct.unpack_from("<Q", pointer_bytes, pointer_offset)
    if first_heap != heap_start:
        fail(f"sbrk starts at {first_heap}, not at the stack's top {heap_start}: unknown layout")
    fp16_table = runtime.fp16_table()
    segment_addresses = runtime.segment_addresses()
    data_end = max(a + len(runtime.segments[s][3]) for s, a in segment_addresses.items())
    if not (data_end <= fp16_table and fp16_table + FP16_TABLE_BYTES <= heap_start):
        fail("the fp16 table the kernels read is not in the runtime's static memory")

    data_addresses, new_heap = place_data(kernels, heap_start)
    runtime.heap_start_is_known_only_to_sbrk(heap_start, pointer_segment, pointer_offset)
    if new_heap > runtime.memory_minimum():
        fail("the kernels' tables do not fit in the memory the runtime starts with")

    defined = kernels.defined_functions()
    names = [name for name, _ in defined]
    if sorted(names) != sorted(KERNELS):
        fail(f"the object defines {sorted(names)}, expected {sorted(KERNELS)}")

    # Symbol -> value in the runtime.
    def resolve(symbol_index):
        symbol = kernels.symbols[symbol_index]
        if symbol.kind == SYMBOL_FUNCTION:
            return runtime.function(symbol.name)
        if symbol.kind == SYMBOL_GLOBAL:
            if symbol.name != "__stack_pointer":
                fail(f"the kernels use global {symbol.name}")
            return stack_global
        if symbol.kind == SYMBOL_DATA:
            if symbol.undefined:
                if symbol.name != FP16_TABLE:
                    fail(f"the kernels read data {symbol.name} the runtime does not name")
                return fp16_table
            return data_addresses[symbol.segment] + symbol.offset
        fail(f"a relocation names a symbol of kind {symbol.kind}")

    # A function the kernels call must have the type they call it with.
    imported_types = [desc for _, _, kind, desc in kernels.imports if kind == IMPORT_FUNC]
    for symbol in kernels.symbols:
        if symbol.kind == SYMBOL_FUNCTION and symbol.undefined:
            wanted = kernels.types[imported_types[symbol.index]]
            if runtime.type_of(runtime.function(symbol.name)) != wanted:
                fail(f"the kernels call {symbol.name} with a type the runtime's lacks")

    def runtime_type(signature):
        if signature not in runtime.types:
            fail("a kernel calls through a type the runtime does not have")
        return runtime.types.index(signature)

    patched = {}
    applied = 0
    for index, (start, body) in enumerate(kernels.bodies):
        body = bytearray(body)
        end = start + len(body)
        for kind, offset, target, addend in kernels.relocations:
            if not start <= offset < end:
                continue
            at = offset - start
            applied += 1
            if kind == FUNCTION_INDEX_LEB:
                body[at : at + 5] = padded_uleb(resolve(target), 5)
            elif kind == GLOBAL_INDEX_LEB:
                body[at : at + 5] = padded_uleb(resolve(target), 5)
            elif kind == TYPE_INDEX_LEB:
                body[at : at + 5] = padded_uleb(runtime_type(kernels.types[target]), 5)
            elif kind == MEMORY_ADDR_LEB64:
                body[at : at + 10] = padded_uleb(resolve(target) + addend, 10)
            elif kind == MEMORY_ADDR_SLEB64:
                body[at : at + 10] = padded_sleb(resolve(target) + addend, 10)
            else:
                fail(f"relocation kind {kind} is not handled")
        patched[kernels.imported_functions + index] = bytes(body)
    if applied != len(kernels.relocations):
        fail(f"{len(kernels.relocations) - applied} code relocations lie outside every function")

    report = {"replaced": [], "fp16_table": fp16_table, "heap_start": {"before": heap_start, "after": new_heap}}
    bodies = list(runtime.bodies)
    for name, object_index in defined:
        index = runtime.function(name)
        object_type = kernels.types[kernels.function_types[object_index - kernels.imported_functions]]
        if object_type != runtime.type_of(index):
            fail(f"{name}: the kernel's type differs from the runtime's")
        old = bodies[index - runtime.imported_functions]
        bodies[index - runtime.imported_functions] = patched[object_index]
        report["replaced"].append({"name": name, "bytes_before": len(old), "bytes_after": len(patched[object_index])})

    # The heap starts after the kernels' tables.
    pointer_bytes = bytearray(pointer_bytes)
    struct.pack_into("<Q", pointer_bytes, pointer_offset, new_heap)
    segments = list(runtime.segments)
    flags, memory, offset, _ = segments[pointer_segment]
    segments[pointer_segment] = (flags, memory, offset, bytes(pointer_bytes))
    # Types whose kernel takes two rows against two columns say so to the matrix product.
    report["two_by_two"] = []
    for vec_dot, from_float in TWO_BY_TWO.items():
        segment, at = runtime.type_traits_rows(vec_dot, from_float)
        flags, memory, offset, contents = segments[segment]
        contents = bytearray(contents)
        struct.pack_into("<q", contents, at, 2)
        segments[segment] = (flags, memory, offset, bytes(contents))
        report["two_by_two"].append(vec_dot)
    # The tables are constant: an active segment writes the same bytes at each thread's start.
    for address, (_flags, _memory, _offset, contents) in zip(data_addresses, kernels.segments):
        segments.append((0, 0, b"\x42" + sleb(address) + b"\x0b", contents))

    function_types = list(runtime.function_types)
    exports = list(runtime.exports)
    extra_names = {}
    if harness:
        for name in KERNELS:
            index = runtime.function(name)
            shipped = runtime.imported_functions + len(bodies)
            bodies.append(runtime.bodies[index - runtime.imported_functions])
            function_types.append(runtime.function_types[index - runtime.imported_functions])
            extra_names[shipped] = f"shipped_{name}"
            exports.append((f"shipped_{name}", 0, shipped))
            exports.append((f"kernel_{name}", 0, index))

    out = []
    for part in runtime.sections:
        if part.kind == SECTION_CODE:
            part.payload = encode_code(bodies)
        elif part.kind == SECTION_FUNCTION:
            part.payload = vector([uleb(t) for t in function_types])
        elif part.kind == SECTION_DATA:
            part.payload = encode_data(segments)
        elif part.kind == SECTION_DATACOUNT:
            part.payload = uleb(len(segments))
        elif part.kind == SECTION_EXPORT:
            part.payload = vector([encode_export(*e) for e in exports])
        elif part.kind == SECTION_IMPORT and harness:
            part.payload = encode_imports(unshared_memory(runtime.imports))
        elif part.kind == SECTION_CUSTOM and part.name == "sourceMappingURL":
            continue  # the map describes the shipped code, not this
        out.append(part)
    if extra_names:
        with_function_names(out, extra_names)
    return write_module(out), report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runtime")
    parser.add_argument("kernels")
    parser.add_argument("out")
    parser.add_argument("--harness", help="also write the equivalence test's module here")
    parser.add_argument("--report", help="write what was replaced, as JSON, here")
    args = parser.parse_args()
    runtime = open(args.runtime, "rb").read()
    kernels = open(args.kernels, "rb").read()
    spliced, report = splice(runtime, kernels)
    open(args.out, "wb").write(spliced)
    if args.harness:
        harness, _ = splice(runtime, kernels, harness=True)
        open(args.harness, "wb").write(harness)
    if args.report:
        json.dump(report, open(args.report, "w"), indent=2)
    for item in report["replaced"]:
        print(f"  {item['name']:26} {item['bytes_before']:5} -> {item['bytes_after']:5} bytes")
    print(f"  fp16 table at {report['fp16_table']}; heap starts at {report['heap_start']['after']}")


if __name__ == "__main__":
    main()
