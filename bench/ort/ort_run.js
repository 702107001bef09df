#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime's CPU build: the peer tunefarm's compiled models are checked
// and timed against. Inputs and outputs are NumPy .npy files, so the same files feed
// `tunefarm model run` and this script.
//
//   node ort_run.js --model M.onnx --input NAME=x.npy [...] [--output-dir D] [--threads T]
//                   [--runs N] [--warmup N] [--json] [--report FILE]
//
// Exit status: 0 on success, 2 on bad input (one line naming what is wrong), 3 if ONNX Runtime fails.
'use strict';

const fs = require('fs');
const path = require('path');
const npy = require('./npy');

const USAGE = `usage: ort_run.js --model M.onnx --input NAME=x.npy [...] [--output-dir D] [--threads T]
                 [--runs N] [--warmup N] [--json] [--report FILE] [--graph-optimization all|disabled]
Runs the model with ONNX Runtime (CPU) on the given inputs; writes each output as D/NAME.npy and
prints the latency (min and median over the runs, in ms). --report FILE also writes the --json
report to FILE (for callers whose stdout carries ONNX Runtime's own messages too).
--graph-optimization disabled runs each node as ONNX defines it (a QDQ model's quantization in
float, not fused into ONNX Runtime's integer kernels).`;

class UsageError extends Error {}

function parseCount(flag, text, min) {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag}: '${text}' is not a whole number`);
  const n = Number(text);
  if (n < min || n > 1e6) throw new UsageError(`${flag}: ${n} is out of range (${min}..1000000)`);
  return n;
}

function parseArgs(argv) {
  const opts = { inputs: new Map(), threads: 1, runs: 1, warmup: 0, json: false, outputDir: null, model: null, report: null,
                 optimization: 'all' };
  for (let i = 0; i < argv.length; ++i) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
      return argv[++i];
    };
    switch (flag) {
      case '--help': case '-h': console.log(USAGE); process.exit(0); break;
      case '--model': opts.model = value(); break;
      case '--output-dir': opts.outputDir = value(); break;
      case '--threads': opts.threads = parseCount(flag, value(), 1); break;
      case '--runs': opts.runs = parseCount(flag, value(), 1); break;
      case '--warmup': opts.warmup = parseCount(flag, value(), 0); break;
      case '--json': opts.json = true; break;
      case '--report': opts.report = value(); break;
      case '--graph-optimization': {
        opts.optimization = value();
        if (!['all', 'disabled'].includes(opts.optimization))
          throw new UsageError(`--graph-optimization '${opts.optimization}': all or disabled`);
        break;
      }
      case '--input': {
        const spec = value();
        const eq = spec.indexOf('=');
        if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--input '${spec}': expected NAME=file.npy`);
        opts.inputs.set(spec.slice(0, eq), spec.slice(eq + 1));
        break;
      }
      default: throw new UsageError(`unknown option '${flag}' (see --help)`);
    }
  }
  if (!opts.model) throw new UsageError('--model is required (see --help)');
  return opts;
}

function median(sorted) {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opts.model)) throw new UsageError(`--model: ${opts.model}: no such file`);
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    throw new Error(`onnxruntime-node is not installed in ${__dirname} (run scripts/setup.sh): ${e.message}`);
  }
  // One intra-op pool of the asked size and sequential execution: the same CPU budget a tunefarm
  // model gets at the same thread count.
  const session = await ort.InferenceSession.create(opts.model, {
    intraOpNumThreads: opts.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: opts.optimization,
  });
  for (const name of opts.inputs.keys()) {
    if (!session.inputNames.includes(name)) {
      throw new UsageError(`--input ${name}: the model has no input of that name (it has ${session.inputNames.join(', ')})`);
    }
  }
  const feeds = {};
  for (const name of session.inputNames) {
    const file = opts.inputs.get(name);
    if (!file) throw new UsageError(`input '${name}' is not given (--input ${name}=file.npy)`);
    const array = npy.read(file);
    feeds[name] = new ort.Tensor(array.dtype, array.data, array.shape);
  }
  for (let i = 0; i < opts.warmup; ++i) await session.run(feeds);
  const times = [];
  let results;
  for (let i = 0; i < opts.runs; ++i) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const outputs = [];
  for (const name of session.outputNames) {
    const t = results[name];
    const entry = { name, shape: t.dims.map(Number), dtype: t.type };
    if (opts.outputDir) {
      fs.mkdirSync(opts.outputDir, { recursive: true });
      entry.file = path.join(opts.outputDir, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.npy`);
      npy.write(entry.file, t.type, t.dims.map(Number), t.data);
    }
    outputs.push(entry);
  }
  const report = {
    peer: 'onnxruntime-node',
    version: ort.env.versions ? ort.env.versions.common : undefined,
    model: opts.model,
    threads: opts.threads,
    runs: opts.runs,
    latency_ms: times[0],
    median_ms: median(times),
    times_ms: times,
    outputs,
  };
  if (opts.report) fs.writeFileSync(opts.report, JSON.stringify(report, null, 2) + '\n');
  if (opts.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(`${path.basename(opts.model)}: ${opts.threads} thread(s), ${opts.runs} run(s): ` +
                `min ${report.latency_ms.toFixed(3)} ms, median ${report.median_ms.toFixed(3)} ms`);
    for (const o of outputs) console.log(`  output ${o.name} [${o.shape.join('x')}] ${o.dtype}${o.file ? ' -> ' + o.file : ''}`);
  }
}

main().catch((e) => {
  const usage = e instanceof UsageError || e instanceof npy.NpyError;
  console.error(`ort_run: ${usage ? '' : 'onnxruntime: '}${e.message}`);
  process.exit(usage ? 2 : 3);
});
