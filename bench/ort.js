// ort.js — ONNX Runtime (onnxruntime-node, CPU) side of the benchmark (the "ORT" columns of the
// float and int8 tables), and the runner that make_quant_models.py uses for calibration and
// reference outputs.  See bench/README.md.
//
// onnxruntime-node is installed into the build directory (npm install --ignore-scripts
// onnxruntime-node@1.30.0); run with NODE_PATH=BUILD/node_modules.  Every session: CPU execution
// provider, graph optimizations "all", intra-op threads T (default 1), inter-op threads 1,
// sequential execution.  Inputs and outputs are raw little-endian float32 files.
//
//   node bench/ort.js minmax MODEL SHAPE IN.bin...
//       runs MODEL (one float input) on every input and prints one JSON object
//       {output name: [min, max]} over all runs (calibration: make_quant_models.py adds every
//       tensor to calibrate as an output)
//   node bench/ort.js run MODEL SHAPE IN.bin OUT.bin [IN.bin OUT.bin]...
//       writes the first output of MODEL (one float input) for each input
//   node bench/ort.js serve SHAPES INS [--threads T] [--warmup W] [--check DIR] NAME=MODEL...
//       loads every model, feeds it the inputs INS of shapes SHAPES (the model's inputs in
//       order), warms each up W times, prints "ready NAME...", then reads commands on stdin:
//       "run NAME K" times K runs of NAME and prints "times t1 ... tK" (ms, around
//       session.run); "quit" or EOF ends.  bench/run.py alternates these with the C side.
//       --check DIR: before "ready", compares each model's outputs (first run) with
//       DIR/output_I.bin under the tolerance of bench/driver.c (CONTRACT.md section 3) and prints
//       "check NAME ok|FAIL worst_err/tol E" (or "check NAME none" when no file is there).
//   node bench/ort.js profile MODEL SHAPES INS [--threads T] [--runs N] [--warmup W]
//       runs MODEL with ORT's profiler on (enableProfiling; the trace goes to a temporary folder,
//       read and removed here): W warm-up runs, then N timed runs; prints, like bench/driver.c
//       --profile, one tab-separated line per node ORT ran, in the order of the first timed run:
//         node <TAB> index <TAB> op <TAB> name <TAB> shape <TAB> - <TAB> ms_per_run <TAB> median
//       (ORT's node names and op types as ORT has them after its graph optimizations: fused
//       nodes such as FusedConv, layout nodes such as ReorderInput; shape: the first output's;
//       ms_per_run: the sum of the node's "_kernel_time" events over the N runs / N; median:
//       the median over the N runs of its time in a run, in ms), then
//         total <TAB> median ms <TAB> mean ms      of session.run (wall time in this process)
//         model_run <TAB> mean ms                  of ORT's own "model_run" events
//         plain <TAB> median ms <TAB> mean ms      of N more session.run after endProfiling,
//                                                  i.e. without the profiler (it costs a few
//                                                  microseconds per node)
//       Only events inside the last N "model_run" events count: the warm-up runs are dropped.
// SHAPE: dims joined by commas, e.g. 1,3,224,224.  Several inputs: SHAPES and INS joined by
// colons, e.g. 1,256,22,22:1,256,6,6 search.bin:template.bin.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const readline = require("readline");
const ort = require("onnxruntime-node");

function options(threads) {
  return {
    executionProviders: ["cpu"],
    graphOptimizationLevel: "all",
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
  };
}

function readInput(path, shape) {
  const buf = fs.readFileSync(path);
  const n = shape.reduce((a, b) => a * b, 1);
  if (buf.length !== 4 * n)
    throw new Error(`${path}: ${buf.length} bytes, want ${4 * n} (shape ${shape.join("x")})`);
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  return new ort.Tensor("float32", data, shape);
}

function parseShape(s) {
  return s.split(",").map((x) => parseInt(x, 10));
}

async function open(model, threads) {
  return ort.InferenceSession.create(model, options(threads));
}

async function minmax(model, shape, inputs) {
  const s = await open(model, 1);
  const ranges = {};
  for (const path of inputs) {
    const out = await s.run({ [s.inputNames[0]]: readInput(path, shape) });
    for (const name of s.outputNames) {
      const d = out[name].data;
      let lo = Infinity, hi = -Infinity;
      for (let i = 0; i < d.length; i++) {
        const v = d[i];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      if (!(name in ranges)) ranges[name] = [lo, hi];
      else {
        ranges[name][0] = Math.min(ranges[name][0], lo);
        ranges[name][1] = Math.max(ranges[name][1], hi);
      }
    }
  }
  process.stdout.write(JSON.stringify(ranges) + "\n");
}

async function run(model, shape, pairs) {
  const s = await open(model, 1);
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const out = await s.run({ [s.inputNames[0]]: readInput(pairs[i], shape) });
    const t = out[s.outputNames[0]];
    if (t.type !== "float32") throw new Error(`${model}: output type ${t.type}, want float32`);
    const d = t.data;
    fs.writeFileSync(pairs[i + 1], Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  }
}

// The check of bench/driver.c: |got - want| <= atol + 1e-3 |want| with atol = max(1e-4 max|want|,
// 1e-5) per output; returns the largest |got - want| / (atol + 1e-3 |want|) and the bad count.
function compare(got, want) {
  let maxabs = 0;
  for (let k = 0; k < want.length; k++) maxabs = Math.max(maxabs, Math.abs(want[k]));
  const atol = Math.max(1e-4 * maxabs, 1e-5);
  let worst = 0, bad = 0;
  for (let k = 0; k < want.length; k++) {
    const e = Math.abs(got[k] - want[k]) / (atol + 1e-3 * Math.abs(want[k]));
    if (!(e <= 1)) bad++;
    if (!(e <= worst)) worst = e;
  }
  return [worst, bad];
}

function check(name, out, s, dir) {
  let worst = 0, bad = 0, checked = 0;
  for (let i = 0; i < s.outputNames.length; i++) {
    const path = `${dir}/output_${i}.bin`;
    if (!fs.existsSync(path)) continue;
    const buf = fs.readFileSync(path);
    const want = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    const got = out[s.outputNames[i]].data;
    checked++;
    if (got.length !== want.length) {
      bad++;
      worst = Infinity;
      continue;
    }
    const [w, b] = compare(got, want);
    worst = Math.max(worst, w);
    bad += b;
  }
  if (!checked) return `check ${name} none`;
  return `check ${name} ${bad ? "FAIL" : "ok"} worst_err/tol ${worst.toPrecision(3)}`;
}

async function serve(shapes, inputs, args) {
  let threads = 1, warmup = 3, checkDir = null;
  const models = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--threads") threads = parseInt(args[++i], 10);
    else if (args[i] === "--warmup") warmup = parseInt(args[++i], 10);
    else if (args[i] === "--check") checkDir = args[++i];
    else {
      const eq = args[i].indexOf("=");
      if (eq <= 0) throw new Error(`bad argument ${args[i]} (want NAME=MODEL)`);
      models.push([args[i].slice(0, eq), args[i].slice(eq + 1)]);
    }
  }
  const sh = shapes.split(":").map(parseShape), ins = inputs.split(":");
  if (sh.length !== ins.length)
    throw new Error(`${sh.length} shapes for ${ins.length} inputs`);
  const xs = ins.map((path, i) => readInput(path, sh[i]));
  const sessions = {};
  for (const [name, path] of models) {
    try {
      const s = await open(path, threads);
      if (s.inputNames.length !== xs.length)
        throw new Error(`${s.inputNames.length} inputs, given ${xs.length}`);
      const feeds = {};
      s.inputNames.forEach((n, i) => { feeds[n] = xs[i]; });
      const out = await s.run(feeds);
      if (checkDir) console.log(check(name, out, s, checkDir));
      for (let k = 0; k < warmup; k++) await s.run(feeds);
      sessions[name] = [s, feeds];
    } catch (e) {
      console.log(`unavailable ${name}: ${String(e.message || e).split("\n")[0]}`);
    }
  }
  console.log("ready " + Object.keys(sessions).join(" "));
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of rl) {
    const w = line.trim().split(/\s+/);
    if (w[0] !== "run" || w.length !== 3 || !(w[1] in sessions)) break;
    const [s, feeds] = sessions[w[1]];
    const k = parseInt(w[2], 10);
    const times = [];
    for (let r = 0; r < k; r++) {
      const t0 = process.hrtime.bigint();
      await s.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    console.log("times " + times.map((t) => t.toFixed(4)).join(" "));
  }
  rl.close();
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b), n = s.length;
  return n % 2 ? s[(n - 1) / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

// A field of a profile line: no tabs or line breaks.
function field(s) {
  return String(s).replace(/[\t\r\n]/g, " ");
}

async function profile(model, shapes, inputs, args) {
  let threads = 1, runs = 20, warmup = 3;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--threads") threads = parseInt(args[++i], 10);
    else if (args[i] === "--runs") runs = parseInt(args[++i], 10);
    else if (args[i] === "--warmup") warmup = parseInt(args[++i], 10);
    else throw new Error(`bad argument ${args[i]}`);
  }
  if (!(runs >= 1) || !(warmup >= 0)) throw new Error("--runs must be >= 1, --warmup >= 0");
  const sh = shapes.split(":").map(parseShape), ins = inputs.split(":");
  if (sh.length !== ins.length) throw new Error(`${sh.length} shapes for ${ins.length} inputs`);
  const xs = ins.map((p, i) => readInput(p, sh[i]));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ort-profile-"));
  try {
    const s = await ort.InferenceSession.create(model, {
      ...options(threads), enableProfiling: true, profileFilePrefix: path.join(dir, "ort"),
    });
    if (s.inputNames.length !== xs.length)
      throw new Error(`${s.inputNames.length} inputs, given ${xs.length}`);
    const feeds = {};
    s.inputNames.forEach((n, i) => { feeds[n] = xs[i]; });
    for (let k = 0; k < warmup; k++) await s.run(feeds);
    const times = [];
    for (let k = 0; k < runs; k++) {
      const t0 = process.hrtime.bigint();
      await s.run(feeds);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    s.endProfiling(); // writes DIR/ort_<date>.json (returns nothing in onnxruntime-node 1.30)
    // The same runs without the profiler (endProfiling stops it), to show what it costs.
    const plain = [];
    for (let k = 0; k < runs; k++) {
      const t0 = process.hrtime.bigint();
      await s.run(feeds);
      plain.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".json"));
    if (files.length !== 1) throw new Error(`${files.length} profile files in ${dir}, want 1`);
    const events = JSON.parse(fs.readFileSync(path.join(dir, files[0]), "utf8"));
    const modelRuns = events.filter((e) => e.cat === "Session" && e.name === "model_run")
      .sort((a, b) => a.ts - b.ts);
    if (modelRuns.length !== warmup + runs)
      throw new Error(`${modelRuns.length} model_run events, want ${warmup + runs}`);
    const timed = modelRuns.slice(warmup);
    // The timed run an event lies in (runs are sorted and do not overlap), or -1.
    const runOf = (ts) => {
      let lo = 0, hi = timed.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1, r = timed[mid];
        if (ts < r.ts) hi = mid - 1;
        else if (ts > r.ts + r.dur) lo = mid + 1;
        else return mid;
      }
      return -1;
    };
    const nodes = new Map(); // name -> {op, shape, us: per timed run, first}
    const suffix = "_kernel_time";
    for (const e of events) {
      if (e.cat !== "Node" || !e.name.endsWith(suffix)) continue;
      const k = runOf(e.ts);
      if (k < 0) continue;
      const name = e.name.slice(0, -suffix.length);
      let n = nodes.get(name);
      if (!n) {
        const a = e.args || {};
        let shape = "-";
        const out = a.output_type_shape && a.output_type_shape[0];
        if (out) {
          const dims = Object.values(out)[0];
          if (Array.isArray(dims)) shape = "[" + dims.join(",") + "]";
        }
        n = { op: a.op_name || "?", shape, us: new Array(runs).fill(0), first: e.ts };
        nodes.set(name, n);
      }
      n.us[k] += e.dur;
      n.first = Math.min(n.first, e.ts);
    }
    const order = [...nodes.entries()].sort((a, b) => a[1].first - b[1].first);
    const lines = order.map(([name, n], i) =>
      ["node", i, field(n.op), field(name), field(n.shape), "-",
       (n.us.reduce((a, b) => a + b, 0) / 1e3 / runs).toFixed(6),
       (median(n.us) / 1e3).toFixed(6)].join("\t"));
    const mean = times.reduce((a, b) => a + b, 0) / runs;
    lines.push(["total", median(times).toFixed(6), mean.toFixed(6)].join("\t"));
    const mr = timed.reduce((a, r) => a + r.dur, 0) / 1e3 / runs;
    lines.push(["model_run", mr.toFixed(6)].join("\t"));
    const pmean = plain.reduce((a, b) => a + b, 0) / runs;
    lines.push(["plain", median(plain).toFixed(6), pmean.toFixed(6)].join("\t"));
    process.stdout.write(lines.join("\n") + "\n");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const [cmd, ...a] = process.argv.slice(2);
  if (cmd === "minmax" && a.length >= 3) await minmax(a[0], parseShape(a[1]), a.slice(2));
  else if (cmd === "run" && a.length >= 4) await run(a[0], parseShape(a[1]), a.slice(2));
  else if (cmd === "serve" && a.length >= 3) await serve(a[0], a[1], a.slice(2));
  else if (cmd === "profile" && a.length >= 3) await profile(a[0], a[1], a[2], a.slice(3));
  else {
    process.stderr.write("usage: ort.js minmax MODEL SHAPE IN... | run MODEL SHAPE IN OUT... | " +
                         "serve SHAPE[:SHAPE...] IN[:IN...] [--threads T] [--warmup W] " +
                         "[--check DIR] NAME=MODEL... | profile MODEL SHAPE[:SHAPE...] " +
                         "IN[:IN...] [--threads T] [--runs N] [--warmup W]\n");
    process.exit(2);
  }
}

main().catch((e) => {
  process.stderr.write(`ort.js: error: ${String(e.message || e).split("\n")[0]}\n`);
  process.exit(1);
});
