"""The bench's extra model files: the Qwen GGUF with every quantised tensor re-quantised to one
type (Q8_0 or Q4_0), so scripts/bench can measure what each quantisation costs in the page's
runtime. Never shipped or offered: its quality is the source file's at best.

Usage: requantize.py SOURCE.gguf q8_0|q4_0 OUT.gguf (with llama.cpp's gguf-py: PyPI `gguf`).
Metadata (tokenizer, chat template) and tensor order are copied; F32/F16 tensors as they are;
general.file_type is set to the new type's (llama.cpp's LLAMA_FTYPE_MOSTLY_*).
"""

import sys

import gguf
import numpy as np
from gguf import GGMLQuantizationType as QT
from gguf import GGUFValueType as VT
from gguf.quants import dequantize, quantize

TYPES = {"q8_0": (QT.Q8_0, 7), "q4_0": (QT.Q4_0, 2)}


def main() -> None:
    source, name, out = sys.argv[1:4]
    target, file_type = TYPES[name]
    reader = gguf.GGUFReader(source)
    writer = gguf.GGUFWriter(out, reader.fields["general.architecture"].contents())
    for key, field in reader.fields.items():
        # The writer adds the header's own fields and the architecture itself.
        if key.startswith("GGUF.") or key == "general.architecture":
            continue
        kind = VT(field.types[0])
        if key == "general.file_type":
            writer.add_key_value(key, file_type, VT.UINT32)
        elif kind == VT.ARRAY:
            writer.add_key_value(key, field.contents(), VT.ARRAY, sub_type=VT(field.types[1]))
        else:
            writer.add_key_value(key, field.contents(), kind)
    block = gguf.GGML_QUANT_SIZES[target][0]
    for tensor in reader.tensors:
        kind = QT(tensor.tensor_type)
        if kind in (QT.F32, QT.F16, QT.BF16):
            data = np.array(tensor.data)
            writer.add_tensor(tensor.name, data, raw_shape=data.shape, raw_dtype=kind)
        elif int(tensor.shape[0]) % block:
            writer.add_tensor(tensor.name, dequantize(tensor.data, kind).astype(np.float16), raw_dtype=QT.F16)
        elif kind == target:
            writer.add_tensor(tensor.name, np.array(tensor.data), raw_dtype=target)
        else:
            writer.add_tensor(tensor.name, quantize(dequantize(tensor.data, kind), target), raw_dtype=target)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main()
