"""Reads and writes the parts of a WebAssembly binary that splice_kernels.py needs: the
sections of a linked module (types, imports, functions, globals, exports, code, data, names)
and, of a relocatable object file as clang writes it, the symbol table and the code
relocations (the "linking" and "reloc.CODE" custom sections of LLVM's object format,
described in the WebAssembly tool-conventions' Linking.md).

Only what the splice uses is decoded; every other byte is kept as it was.
"""

SECTION_CUSTOM, SECTION_TYPE, SECTION_IMPORT, SECTION_FUNCTION = 0, 1, 2, 3
SECTION_GLOBAL, SECTION_EXPORT, SECTION_CODE, SECTION_DATA, SECTION_DATACOUNT = 6, 7, 10, 11, 12
SECTION_ELEMENT = 9

IMPORT_FUNC, IMPORT_TABLE, IMPORT_MEMORY, IMPORT_GLOBAL, IMPORT_TAG = 0, 1, 2, 3, 4


class Reader:
    def __init__(self, data, pos=0, end=None):
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    def byte(self):
        value = self.data[self.pos]
        self.pos += 1
        return value

    def uleb(self):
        result = shift = 0
        while True:
            byte = self.byte()
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return result

    def sleb(self):
        result = shift = 0
        while True:
            byte = self.byte()
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                if byte & 0x40:
                    result -= 1 << shift
                return result

    def take(self, count):
        value = self.data[self.pos : self.pos + count]
        if len(value) != count:
            raise ValueError("the binary ends inside a field")
        self.pos += count
        return bytes(value)

    def name(self):
        return self.take(self.uleb()).decode("utf-8")

    def done(self):
        return self.pos >= self.end


def uleb(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def sleb(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if (value == 0 and not byte & 0x40) or (value == -1 and byte & 0x40):
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


def padded_uleb(value, width):
    """A LEB of exactly `width` bytes: how object files leave room for a relocated value."""
    out = bytearray()
    for i in range(width):
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if i < width - 1 else 0))
    if value:
        raise ValueError("value too large for its relocation field")
    return bytes(out)


def padded_sleb(value, width):
    out = bytearray()
    for i in range(width):
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if i < width - 1 else 0))
    if value not in (0, -1):
        raise ValueError("value too large for its relocation field")
    return bytes(out)


def name_bytes(text):
    raw = text.encode("utf-8")
    return uleb(len(raw)) + raw


def vector(items):
    return uleb(len(items)) + b"".join(items)


class Section:
    def __init__(self, kind, payload, name=None):
        self.kind = kind
        self.payload = payload
        self.name = name

    def encode(self):
        return bytes([self.kind]) + uleb(len(self.payload)) + self.payload


def read_sections(data):
    if data[:4] != b"\0asm" or data[4:8] != b"\1\0\0\0":
        raise ValueError("not a WebAssembly binary (version 1)")
    reader = Reader(data, 8)
    sections = []
    while not reader.done():
        kind = reader.byte()
        size = reader.uleb()
        start = reader.pos
        payload = reader.take(size)
        name = None
        if kind == SECTION_CUSTOM:
            name = Reader(data, start).name()
        sections.append(Section(kind, payload, name))
    return sections


def write_module(sections):
    return b"\0asm\1\0\0\0" + b"".join(section.encode() for section in sections)


def section(sections, kind, name=None):
    found = [s for s in sections if s.kind == kind and (name is None or s.name == name)]
    return found[0] if found else None


def read_limits(reader):
    flags = reader.uleb()
    if flags & ~0x7:
        raise ValueError(f"limits flags {flags:#x} are not handled")
    minimum = reader.uleb()
    maximum = reader.uleb() if flags & 1 else None
    return flags, minimum, maximum


def read_const_expr(reader):
    """A constant expression, kept as its bytes (up to and including `end`)."""
    start = reader.pos
    while True:
        op = reader.byte()
        if op == 0x0B:
            return bytes(reader.data[start : reader.pos])
        if op in (0x41, 0x42):
            reader.sleb()
        elif op == 0x23:
            reader.uleb()
        elif op == 0x43:
            reader.take(4)
        elif op == 0x44:
            reader.take(8)
        elif op == 0xD2:
            reader.uleb()
        elif op == 0xFD:
            reader.uleb()
            reader.take(16)
        elif op in (0x6A, 0x6B, 0x6C, 0x7C, 0x7D, 0x7E):
            pass
        else:
            raise ValueError(f"unexpected opcode 0x{op:02x} in a constant expression")


def read_imports(payload):
    reader = Reader(payload)
    imports = []
    for _ in range(reader.uleb()):
        module, field, kind = reader.name(), reader.name(), reader.byte()
        if kind == IMPORT_FUNC:
            desc = reader.uleb()
        elif kind == IMPORT_TABLE:
            desc = (reader.byte(), read_limits(reader))
        elif kind == IMPORT_MEMORY:
            desc = read_limits(reader)
        elif kind == IMPORT_GLOBAL:
            desc = (reader.byte(), reader.byte())
        elif kind == IMPORT_TAG:
            desc = (reader.byte(), reader.uleb())
        else:
            raise ValueError(f"unknown import kind {kind}")
        imports.append((module, field, kind, desc))
    return imports


def read_types(payload):
    """Function types as (params, results) byte strings; only plain `func` types."""
    reader = Reader(payload)
    types = []
    for _ in range(reader.uleb()):
        form = reader.byte()
        if form != 0x60:
            raise ValueError(f"type form 0x{form:02x} is not handled")
        params = reader.take(reader.uleb())
        results = reader.take(reader.uleb())
        types.append((params, results))
    return types


def read_function_types(payload):
    reader = Reader(payload)
    return [reader.uleb() for _ in range(reader.uleb())]


def read_globals(payload):
    reader = Reader(payload)
    result = []
    for _ in range(reader.uleb()):
        valtype, mutable = reader.byte(), reader.byte()
        result.append((valtype, mutable, read_const_expr(reader)))
    return result


def read_exports(payload):
    reader = Reader(payload)
    return [(reader.name(), reader.byte(), reader.uleb()) for _ in range(reader.uleb())]


def encode_export(name, kind, index):
    return name_bytes(name) + bytes([kind]) + uleb(index)


def read_code(payload):
    """Function bodies (locals and instructions), without their size prefix."""
    reader = Reader(payload)
    bodies = []
    for _ in range(reader.uleb()):
        size = reader.uleb()
        bodies.append(reader.take(size))
    return bodies


def code_with_offsets(payload):
    """Bodies with the offset, within the section payload, of each body's first byte."""
    reader = Reader(payload)
    bodies = []
    for _ in range(reader.uleb()):
        size = reader.uleb()
        bodies.append((reader.pos, reader.take(size)))
    return bodies


def encode_code(bodies):
    return vector([uleb(len(body)) + body for body in bodies])


def read_data(payload):
    """Data segments as (flags, memory index, offset expression bytes or None, contents)."""
    reader = Reader(payload)
    segments = []
    for _ in range(reader.uleb()):
        flags = reader.uleb()
        memory, offset = 0, None
        if flags == 0:
            offset = read_const_expr(reader)
        elif flags == 2:
            memory = reader.uleb()
            offset = read_const_expr(reader)
        elif flags != 1:
            raise ValueError(f"data segment flags {flags} are not handled")
        segments.append((flags, memory, offset, reader.take(reader.uleb())))
    return segments


def encode_data(segments):
    items = []
    for flags, memory, offset, contents in segments:
        item = uleb(flags)
        if flags == 2:
            item += uleb(memory)
        if flags in (0, 2):
            item += offset
        items.append(item + uleb(len(contents)) + contents)
    return vector(items)


def const_i64(expression):
    """The value of an `i64.const N end` expression."""
    reader = Reader(expression)
    if reader.byte() != 0x42:
        raise ValueError("expected i64.const")
    value = reader.sleb()
    if reader.byte() != 0x0B:
        raise ValueError("expected a single i64.const")
    return value


def read_function_names(sections):
    """Function index -> name, from the `name` custom section."""
    names = {}
    custom = section(sections, SECTION_CUSTOM, "name")
    if custom is None:
        return names
    reader = Reader(custom.payload)
    reader.name()
    while not reader.done():
        kind = reader.byte()
        size = reader.uleb()
        end = reader.pos + size
        if kind == 1:
            for _ in range(reader.uleb()):
                index = reader.uleb()
                names[index] = reader.name()
        reader.pos = end
    return names


def with_function_names(sections, extra):
    """The `name` section with names added for new function indices (others kept)."""
    custom = section(sections, SECTION_CUSTOM, "name")
    if custom is None:
        return
    names = read_function_names(sections)
    names.update(extra)
    reader = Reader(custom.payload)
    header = name_bytes(reader.name())
    parts = []
    while not reader.done():
        kind = reader.byte()
        body = reader.take(reader.uleb())
        if kind == 1:
            body = vector([uleb(i) + name_bytes(n) for i, n in sorted(names.items())])
        parts.append(bytes([kind]) + uleb(len(body)) + body)
    custom.payload = header + b"".join(parts)


# Relocatable objects (LLVM's wasm object format).

SYMBOL_FUNCTION, SYMBOL_DATA, SYMBOL_GLOBAL, SYMBOL_SECTION, SYMBOL_TAG, SYMBOL_TABLE = range(6)
SYMBOL_UNDEFINED = 0x10
SYMBOL_EXPLICIT_NAME = 0x40

# Relocation types whose entries carry an addend.
RELOCATIONS_WITH_ADDEND = {3, 4, 5, 8, 9, 11, 14, 15, 16, 17, 21, 22, 23, 25}


class Symbol:
    def __init__(self, kind, flags, index=None, name=None, segment=None, offset=None, size=None):
        self.kind = kind
        self.flags = flags
        self.index = index
        self.name = name
        self.segment = segment
        self.offset = offset
        self.size = size

    @property
    def undefined(self):
        return bool(self.flags & SYMBOL_UNDEFINED)


def read_symbols(payload, imports):
    """The symbol table of a `linking` section (version 2)."""
    reader = Reader(payload)
    reader.name()
    if reader.uleb() != 2:
        raise ValueError("linking section version is not 2")
    imported = {
        kind: [(module, field) for module, field, k, _ in imports if k == kind]
        for kind in (IMPORT_FUNC, IMPORT_GLOBAL, IMPORT_TABLE, IMPORT_TAG)
    }
    symbols = []
    while not reader.done():
        kind = reader.byte()
        size = reader.uleb()
        end = reader.pos + size
        if kind == 8:
            for _ in range(reader.uleb()):
                sym_kind, flags = reader.byte(), reader.uleb()
                if sym_kind == SYMBOL_DATA:
                    name = reader.name()
                    symbol = Symbol(sym_kind, flags, name=name)
                    if not flags & SYMBOL_UNDEFINED:
                        symbol.segment, symbol.offset, symbol.size = reader.uleb(), reader.uleb(), reader.uleb()
                elif sym_kind == SYMBOL_SECTION:
                    symbol = Symbol(sym_kind, flags, index=reader.uleb())
                else:
                    index = reader.uleb()
                    name = None
                    if not flags & SYMBOL_UNDEFINED or flags & SYMBOL_EXPLICIT_NAME:
                        name = reader.name()
                    else:
                        import_kind = {
                            SYMBOL_FUNCTION: IMPORT_FUNC,
                            SYMBOL_GLOBAL: IMPORT_GLOBAL,
                            SYMBOL_TABLE: IMPORT_TABLE,
                            SYMBOL_TAG: IMPORT_TAG,
                        }[sym_kind]
                        name = imported[import_kind][index][1]
                    symbol = Symbol(sym_kind, flags, index=index, name=name)
                symbols.append(symbol)
        reader.pos = end
    return symbols


def read_segment_info(payload):
    """(log2 alignment, flags) of each data segment, from a `linking` section."""
    reader = Reader(payload)
    reader.name()
    reader.uleb()
    info = []
    while not reader.done():
        kind = reader.byte()
        size = reader.uleb()
        end = reader.pos + size
        if kind == 5:
            for _ in range(reader.uleb()):
                reader.name()
                info.append((reader.uleb(), reader.uleb()))
        reader.pos = end
    return info


def read_relocations(payload):
    """(target section index, [(type, offset, index, addend)]) of a `reloc.*` section."""
    reader = Reader(payload)
    reader.name()
    target = reader.uleb()
    entries = []
    for _ in range(reader.uleb()):
        kind, offset, index = reader.uleb(), reader.uleb(), reader.uleb()
        addend = reader.sleb() if kind in RELOCATIONS_WITH_ADDEND else 0
        entries.append((kind, offset, index, addend))
    return target, entries


def encode_imports(imports):
    items = []
    for module, field, kind, desc in imports:
        item = name_bytes(module) + name_bytes(field) + bytes([kind])
        if kind == IMPORT_FUNC:
            item += uleb(desc)
        elif kind == IMPORT_TABLE:
            reftype, limits = desc
            item += bytes([reftype]) + encode_limits(limits)
        elif kind == IMPORT_MEMORY:
            item += encode_limits(desc)
        elif kind == IMPORT_GLOBAL:
            item += bytes(desc)
        else:
            item += bytes([desc[0]]) + uleb(desc[1])
        items.append(item)
    return vector(items)


def encode_limits(limits):
    flags, minimum, maximum = limits
    return uleb(flags) + uleb(minimum) + (uleb(maximum) if maximum is not None else b"")
