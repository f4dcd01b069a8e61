// The kernel-equivalence check, run in headless Chromium by tests/runtime_kernels_e2e.rs.
// It loads the splice's harness (the page's runtime with the shipped generic kernels kept
// beside ggml's wasm SIMD ones, both exported), feeds both the same random blocks, and
// reports every difference. Block layouts: ggml/src/ggml-common.h (ggml 0.26).

const SEED = 0x5eed1e55;
const SCRATCH = 64n << 20n; // far above the runtime's static data and heap start
const EPS = 2 ** -23;

function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

// Weight blocks: size in bytes, values per block, where their fp16 scales lie, the type
// their rows are multiplied with.
const WEIGHTS = {
  q4_0: { bytes: 18, per: 32, halves: [0], dot: "q8_0" },
  q4_1: { bytes: 20, per: 32, halves: [0, 2], dot: "q8_1" },
  q5_0: { bytes: 22, per: 32, halves: [0], dot: "q8_0" },
  q5_1: { bytes: 24, per: 32, halves: [0, 2], dot: "q8_1" },
  q8_0: { bytes: 34, per: 32, halves: [0], dot: "q8_0" },
  q2_K: { bytes: 84, per: 256, halves: [80, 82], dot: "q8_K" },
  q3_K: { bytes: 110, per: 256, halves: [108], dot: "q8_K" },
  q4_K: { bytes: 144, per: 256, halves: [0, 2], dot: "q8_K" },
  q5_K: { bytes: 176, per: 256, halves: [0, 2], dot: "q8_K" },
  q6_K: { bytes: 210, per: 256, halves: [208], dot: "q8_K" },
};
const ACTIVATIONS = {
  q8_0: { bytes: 34, per: 32 },
  q8_1: { bytes: 36, per: 32 },
  q8_K: { bytes: 292, per: 256 },
};

async function instantiate() {
  const bytes = await (await fetch("harness.wasm")).arrayBuffer();
  const module = await WebAssembly.compile(bytes);
  const memory = new WebAssembly.Memory({ initial: 2048n, maximum: 65536n, address: "i64" });
  const imports = {};
  for (const { module: from, name, kind } of WebAssembly.Module.imports(module)) {
    imports[from] ??= {};
    if (kind === "memory") imports[from][name] = memory;
    else if (kind === "function")
      imports[from][name] = () => {
        throw new Error(`the kernels called the runtime's import ${name}`);
      };
    else throw new Error(`unexpected import kind ${kind}`);
  }
  const instance = await WebAssembly.instantiate(module, imports);
  return { exports: instance.exports, memory };
}

function check({ exports, memory }, report) {
  const view = () => new DataView(memory.buffer);
  const u8 = () => new Uint8Array(memory.buffer);
  // ggml_cpu_init fills the fp16 table; the harness runs no init, so the check does.
  const table = report.fp16_table;
  for (let h = 0; h < 65536; h++) view().setFloat32(table + 4 * h, halfToFloat(h), true);

  const random = rng(SEED);
  const normal = () => {
    // Sums of uniforms: bell-shaped, with a rare outlier as real activations have.
    const v = random() + random() + random() - 1.5;
    return random() < 0.01 ? v * 40 : v;
  };
  const randomHalf = () => {
    // A finite scale between 2^-12 and 2^-2 of either sign, as GGUF files hold.
    const exp = 3 + Math.floor(random() * 11);
    return ((random() < 0.5 ? 0x8000 : 0) | (exp << 10) | Math.floor(random() * 1024)) & 0xffff;
  };

  let cursor = SCRATCH;
  // Each allocation is followed by 64 guard bytes: a kernel that writes past its output
  // is caught by `guarded`.
  const GUARD = 0xa5;
  const alloc = (size) => {
    const at = cursor;
    const end = Number(at) + size;
    u8().fill(GUARD, end, end + 64);
    cursor += BigInt(((size + 63) & ~63) + 64);
    return at;
  };
  const guarded = (at, size) => u8().subarray(Number(at) + size, Number(at) + size + 64).every((b) => b === GUARD);
  let overruns = 0;
  const results = { seed: SEED, quantize: {}, dot: {} };

  // Quantizing activations: same scales, same integers, except where x/d lies exactly halfway
  // (the shipped reference rounds half away from zero, the SIMD kernel half to even).
  for (const type of ["q8_0", "q8_1", "q8_K"]) {
    const info = ACTIVATIONS[type];
    const rows = 64;
    const k = 256 * 4;
    let values = 0;
    let differing = 0;
    let offTie = 0;
    let scaleDiffers = 0;
    let sumDiffers = 0;
    for (let row = 0; row < rows; row++) {
      const x = alloc(4 * k);
      const zeroRow = row === 0;
      for (let i = 0; i < k; i++) view().setFloat32(Number(x) + 4 * i, zeroRow ? 0 : normal(), true);
      const blocks = k / info.per;
      const a = alloc(blocks * info.bytes);
      const b = alloc(blocks * info.bytes);
      exports[`shipped_quantize_row_${type}`](x, a, BigInt(k));
      exports[`kernel_quantize_row_${type}`](x, b, BigInt(k));
      if (!guarded(a, blocks * info.bytes) || !guarded(b, blocks * info.bytes)) overruns++;
      for (let block = 0; block < blocks; block++) {
        const pa = Number(a) + block * info.bytes;
        const pb = Number(b) + block * info.bytes;
        const quants = type === "q8_0" ? 2 : 4; // after d (and s, or a float d)
        if (type === "q8_K") {
          if (view().getUint32(pa, true) !== view().getUint32(pb, true)) scaleDiffers++;
        } else if (view().getUint16(pa, true) !== view().getUint16(pb, true)) {
          scaleDiffers++;
        }
        let anyDiffers = false;
        for (let j = 0; j < info.per; j++) {
          values++;
          const qa = view().getInt8(pa + quants + j);
          const qb = view().getInt8(pb + quants + j);
          if (qa === qb) continue;
          differing++;
          anyDiffers = true;
          // Where the two may round apart: the scaled value exactly halfway between two
          // integers, computed as the kernels do (float32 throughout).
          const at = Number(x) + 4 * block * info.per;
          const xs = Array.from({ length: info.per }, (_, i) => view().getFloat32(at + 4 * i, true));
          let scaled;
          if (type === "q8_K") {
            // ggml's reference: the value of largest magnitude, with its sign, gives -127/max.
            let max = 0;
            for (const v of xs) if (Math.abs(v) > Math.abs(max)) max = v;
            scaled = Math.fround(Math.fround(-127 / max) * xs[j]);
          } else {
            const amax = Math.max(...xs.map(Math.abs));
            const dd = Math.fround(amax / 127);
            scaled = Math.fround(xs[j] * (dd ? Math.fround(1 / dd) : 0));
          }
          const halfway = Math.abs(scaled - Math.trunc(scaled)) === 0.5;
          if (Math.abs(qa - qb) > 1 || !halfway) offTie++;
        }
        if (type === "q8_1" && !anyDiffers && view().getUint16(pa + 2, true) !== view().getUint16(pb + 2, true))
          sumDiffers++;
        if (type === "q8_K" && !anyDiffers) {
          for (let g = 0; g < 16; g++) {
            const at = 4 + 256 + 2 * g;
            if (view().getInt16(pa + at, true) !== view().getInt16(pb + at, true)) sumDiffers++;
          }
        }
      }
    }
    results.quantize[type] = { rows, values, differing, off_tie: offTie, scale_differs: scaleDiffers, sum_differs: sumDiffers, overruns };
    overruns = 0;
  }

  // Dot products: random weight blocks (random bits, finite random scales) against activations
  // quantized by the shipped code; the two kernels must agree up to float32 summation order.
  for (const [type, info] of Object.entries(WEIGHTS)) {
    const act = ACTIVATIONS[info.dot];
    const name = `ggml_vec_dot_${type}_${info.dot}`;
    let trials = 0;
    let worst = 0;
    let failures = 0;
    let nonzero = 0;
    for (const nb of [1, 2, 3, 8, 16]) {
      for (let trial = 0; trial < 40; trial++) {
        trials++;
        const n = nb * info.per;
        const x = alloc(nb * info.bytes);
        for (let i = 0; i < nb * info.bytes; i++) u8()[Number(x) + i] = Math.floor(random() * 256);
        for (let block = 0; block < nb; block++)
          for (const h of info.halves) view().setUint16(Number(x) + block * info.bytes + h, randomHalf(), true);
        const floats = alloc(4 * n);
        for (let i = 0; i < n; i++) view().setFloat32(Number(floats) + 4 * i, normal(), true);
        const y = alloc((n / act.per) * act.bytes);
        exports[`shipped_quantize_row_${info.dot}`](floats, y, BigInt(n));
        const out = alloc(4);
        const dot = (fn, xs, ys, count) => {
          // NaN first: a kernel that writes nothing fails instead of leaving the last result.
          view().setFloat32(Number(out), NaN, true);
          exports[fn](count, out, 0n, xs, 0n, ys, 0n, 1);
          if (!guarded(out, 4)) overruns++;
          return view().getFloat32(Number(out), true);
        };
        const shipped = dot(`shipped_${name}`, x, y, n);
        const kernel = dot(`kernel_${name}`, x, y, n);
        // The scale of the rounding: per block, the magnitude of each part of its result
        // (a block with a minimum gives d·Σ minus m·Σ: each part is taken alone, its other
        // scale set to zero), summed over the blocks. Within a part both kernels sum integers
        // exactly.
        let magnitude = 0;
        const perY = info.per / act.per;
        const one = alloc(info.bytes);
        for (let block = 0; block < nb; block++) {
          const from = Number(x) + block * info.bytes;
          for (const keep of info.halves) {
            u8().copyWithin(Number(one), from, from + info.bytes);
            for (const h of info.halves) if (h !== keep) view().setUint16(Number(one) + h, 0, true);
            magnitude += Math.abs(dot(`shipped_${name}`, one, y + BigInt(block * perY * act.bytes), info.per));
          }
        }
        if (shipped !== 0) nonzero++;
        const ratio = magnitude > 0 ? Math.abs(kernel - shipped) / (EPS * magnitude) : kernel === shipped ? 0 : Infinity;
        worst = Math.max(worst, ratio);
        // Float32 sums of the same terms in another order: a few ulps of the magnitude per
        // term. A K-quant block's result is itself a float sum of up to 16 partial sums (the
        // SIMD kernels convert per-lane or per-group integer sums), the others' one.
        const terms = nb * (info.per === 256 ? 16 : 1);
        if (!(ratio <= 4 * (terms + 4)) || Number.isNaN(kernel) || Number.isNaN(shipped)) failures++;
        // Each trial's blocks are its own; past 32 MB the space is used again.
        if (cursor > SCRATCH + (32n << 20n)) cursor = SCRATCH;
      }
    }
    results.dot[name] = { trials, nonzero, failures, overruns, worst_in_eps_of_magnitude: Number(worst.toFixed(3)) };
    overruns = 0;
  }

  // Two rows against two columns (`nrc` 2, as ggml's matrix product calls a kernel whose type
  // has `nrows` 2): rows `bx` bytes apart and columns `by` apart, both with a gap after the
  // row so a kernel that ignores the stride reads the wrong blocks; results at s[0], s[1],
  // s[bs], s[bs + 1] with bs 16 as ggml passes, and every other slot of the 32 left alone.
  results.two_by_two = {};
  for (const name of report.two_by_two) {
    const [, type, dotType] = name.match(/^ggml_vec_dot_(\w+?)_(q8_\w+)$/);
    const info = WEIGHTS[type];
    const act = ACTIVATIONS[dotType];
    const SENTINEL = 1234.5;
    let trials = 0;
    let worst = 0;
    let failures = 0;
    let untouched = true;
    for (const nb of [1, 2, 3, 8, 16]) {
      for (let trial = 0; trial < 20; trial++) {
        trials++;
        const n = nb * info.per;
        const bx = nb * info.bytes + 64;
        const by = (n / act.per) * act.bytes + 96;
        const x = alloc(2 * bx);
        for (let i = 0; i < 2 * bx; i++) u8()[Number(x) + i] = Math.floor(random() * 256);
        for (const row of [0, 1])
          for (let block = 0; block < nb; block++)
            for (const h of info.halves) view().setUint16(Number(x) + row * bx + block * info.bytes + h, randomHalf(), true);
        const y = alloc(2 * by);
        for (const col of [0, 1]) {
          const floats = alloc(4 * n);
          for (let i = 0; i < n; i++) view().setFloat32(Number(floats) + 4 * i, normal(), true);
          exports[`shipped_quantize_row_${dotType}`](floats, y + BigInt(col * by), BigInt(n));
        }
        const out = alloc(4 * 32);
        for (let i = 0; i < 32; i++) view().setFloat32(Number(out) + 4 * i, SENTINEL, true);
        exports[`kernel_${name}`](n, out, 16n, x, BigInt(bx), y, BigInt(by), 2);
        if (!guarded(out, 4 * 32)) overruns++;
        for (let i = 0; i < 32; i++)
          if (![0, 1, 16, 17].includes(i) && view().getFloat32(Number(out) + 4 * i, true) !== SENTINEL) untouched = false;
        const single = alloc(4);
        const one = alloc(info.bytes);
        for (const [slot, row, col] of [[0, 0, 0], [1, 1, 0], [16, 0, 1], [17, 1, 1]]) {
          const xs = x + BigInt(row * bx);
          const ys = y + BigInt(col * by);
          exports[`shipped_${name}`](n, single, 0n, xs, 0n, ys, 0n, 1);
          const shipped = view().getFloat32(Number(single), true);
          const kernel = view().getFloat32(Number(out) + 4 * slot, true);
          // The rounding's scale, as above: each block's result taken alone.
          let magnitude = 0;
          for (let block = 0; block < nb; block++) {
            u8().copyWithin(Number(one), Number(xs) + block * info.bytes, Number(xs) + (block + 1) * info.bytes);
            exports[`shipped_${name}`](info.per, single, 0n, one, 0n, ys + BigInt((block * info.per / act.per) * act.bytes), 0n, 1);
            magnitude += Math.abs(view().getFloat32(Number(single), true));
          }
          const ratio = magnitude > 0 ? Math.abs(kernel - shipped) / (EPS * magnitude) : kernel === shipped ? 0 : Infinity;
          worst = Math.max(worst, ratio);
          const terms = nb * (info.per === 256 ? 16 : 1);
          if (!(ratio <= 4 * (terms + 4)) || Number.isNaN(kernel) || Number.isNaN(shipped)) failures++;
        }
        if (cursor > SCRATCH + (32n << 20n)) cursor = SCRATCH;
      }
    }
    results.two_by_two[name] = { trials, failures, overruns, untouched, worst_in_eps_of_magnitude: Number(worst.toFixed(3)) };
    overruns = 0;
  }
  return results;
}

// `?bench`: each kernel's time on a 4096×4096 mat-vec, as ggml runs one: a call per row, every
// row against the same activations (which stay in cache while the weights stream), shipped
// beside SIMD, best of 5, on this page's one thread. The JS call per row costs both the same.
function bench({ exports, memory }, report) {
  const view = () => new DataView(memory.buffer);
  const u8 = () => new Uint8Array(memory.buffer);
  memory.grow(2048n);
  const table = report.fp16_table;
  for (let h = 0; h < 65536; h++) view().setFloat32(table + 4 * h, halfToFloat(h), true);
  const random = rng(SEED);
  const n = 4096 * 4096; // weights in all
  const out = {};
  const best = (fn) => {
    let fastest = Infinity;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      fn();
      fastest = Math.min(fastest, performance.now() - t0);
    }
    return Number(fastest.toFixed(2));
  };
  for (const [type, info] of Object.entries(WEIGHTS)) {
    const x = SCRATCH;
    const xBytes = (n / info.per) * info.bytes;
    for (let i = 0; i < xBytes; i += 4) view().setUint32(Number(x) + i, (random() * 2 ** 32) >>> 0, true);
    for (let block = 0; block < n / info.per; block++)
      for (const h of info.halves) view().setUint16(Number(x) + block * info.bytes + h, 0x2c00, true);
    const floats = x + BigInt((xBytes + 63) & ~63);
    for (let i = 0; i < 4096; i++) view().setFloat32(Number(floats) + 4 * i, random() - 0.5, true);
    const y = floats + 16384n;
    exports[`shipped_quantize_row_${info.dot}`](floats, y, 4096n);
    const rowBytes = (4096 / info.per) * info.bytes;
    const result = y + 16384n;
    const name = `ggml_vec_dot_${type}_${info.dot}`;
    const matvec = (fn) => () => {
      for (let row = 0; row < 4096; row++) fn(4096, result, 0n, x + BigInt(row * rowBytes), 0n, y, 0n, 1);
    };
    out[type] = {
      shipped_ms: best(matvec(exports[`shipped_${name}`])),
      simd_ms: best(matvec(exports[`kernel_${name}`])),
    };
    if (report.two_by_two.includes(name)) {
      // Reading a prompt: two columns. Row by row, a call per row and column, against the
      // kernel taking two rows and two columns a call; time per 4096² as above (half of it).
      const y2 = result + 256n; // past s[bs + 1]
      exports[`shipped_quantize_row_${info.dot}`](floats, y2, 4096n);
      const columnBytes = Number(y2 - y);
      const pairs = () => {
        for (let row = 0; row < 4096; row += 2)
          exports[`kernel_${name}`](4096, result, 16n, x + BigInt(row * rowBytes), BigInt(rowBytes), y, BigInt(columnBytes), 2);
      };
      const singles = () => {
        for (let col = 0; col < 2; col++)
          for (let row = 0; row < 4096; row++)
            exports[`kernel_${name}`](4096, result, 0n, x + BigInt(row * rowBytes), 0n, y + BigInt(col * columnBytes), 0n, 1);
      };
      out[type].simd_two_columns_ms = { one_by_one: best(singles) / 2, two_by_two: best(pairs) / 2 };
    }
  }
  return out;
}

(async () => {
  try {
    const report = await (await fetch("report.json")).json();
    const runtime = await instantiate();
    const results = location.search.includes("bench") ? bench(runtime, report) : check(runtime, report);
    window.kernelCheck = { ok: true, results };
  } catch (error) {
    window.kernelCheck = { ok: false, error: String(error && error.stack ? error.stack : error) };
  }
  document.getElementById("out").textContent = JSON.stringify(window.kernelCheck, null, 1);
  document.body.dataset.done = "1";
})();
