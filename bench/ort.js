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
// SHAPE: dims joined by commas, e.g. 1,3,224,224.  Several inputs: SHAPES and INS joined by
// colons, e.g. 1,256,22,22:1,256,6,6 search.bin:template.bin.
"use strict";
const fs = require("fs");
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

async function main() {
  const [cmd, ...a] = process.argv.slice(2);
  if (cmd === "minmax" && a.length >= 3) await minmax(a[0], parseShape(a[1]), a.slice(2));
  else if (cmd === "run" && a.length >= 4) await run(a[0], parseShape(a[1]), a.slice(2));
  else if (cmd === "serve" && a.length >= 3) await serve(a[0], a[1], a.slice(2));
  else {
    process.stderr.write("usage: ort.js minmax MODEL SHAPE IN... | run MODEL SHAPE IN OUT... | " +
                         "serve SHAPE[:SHAPE...] IN[:IN...] [--threads T] [--warmup W] " +
                         "[--check DIR] NAME=MODEL...\n");
    process.exit(2);
  }
}

main().catch((e) => {
  process.stderr.write(`ort.js: error: ${String(e.message || e).split("\n")[0]}\n`);
  process.exit(1);
});
