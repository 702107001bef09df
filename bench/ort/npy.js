// NumPy .npy files (format versions 1-3, little-endian, C order) for the dtypes models take and
// give here: float32, float64, int64, int32 and bool, as onnxruntime-node holds them (int64 in a
// BigInt64Array, bool one byte per element in a Uint8Array).
'use strict';

const fs = require('fs');

class NpyError extends Error {}

// The first name of each dtype is the one written; '=' is the (little-endian) host's order.
const DTYPES = {
  '<f4': { ort: 'float32', Array: Float32Array },
  '=f4': { ort: 'float32', Array: Float32Array },
  '<i8': { ort: 'int64', Array: BigInt64Array },
  '=i8': { ort: 'int64', Array: BigInt64Array },
  '<i4': { ort: 'int32', Array: Int32Array },
  '=i4': { ort: 'int32', Array: Int32Array },
  '|b1': { ort: 'bool', Array: Uint8Array },
  '<f8': { ort: 'float64', Array: Float64Array },
  '=f8': { ort: 'float64', Array: Float64Array },
};
const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);  // \x93NUMPY

function field(header, name, file) {
  const m = header.match(new RegExp(`'${name}'\\s*:\\s*('[^']*'|True|False|\\([^)]*\\))`));
  if (!m) throw new NpyError(`${file}: the .npy header has no '${name}'`);
  return m[1];
}

function read(file) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    throw new NpyError(`${file}: cannot read (${e.code || e.message})`);
  }
  if (bytes.length < 10 || !bytes.subarray(0, 6).equals(MAGIC)) throw new NpyError(`${file}: not a .npy file`);
  const major = bytes[6];
  if (major < 1 || major > 3) throw new NpyError(`${file}: .npy format version ${major} is not supported`);
  const headerLength = major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  if (headerStart + headerLength > bytes.length) throw new NpyError(`${file}: truncated header`);
  const header = bytes.toString('latin1', headerStart, headerStart + headerLength);
  const descr = field(header, 'descr', file).replace(/'/g, '');
  const dtype = DTYPES[descr];
  if (!dtype) throw new NpyError(`${file}: dtype '${descr}' is not supported (float32 '<f4', float64 '<f8', int64 '<i8', int32 '<i4', bool '|b1')`);
  if (field(header, 'fortran_order', file) !== 'False') throw new NpyError(`${file}: Fortran order is not supported`);
  const shape = field(header, 'shape', file).slice(1, -1).split(',').map((s) => s.trim()).filter((s) => s.length)
    .map((s) => {
      if (!/^\d+$/.test(s)) throw new NpyError(`${file}: bad extent '${s}' in the shape`);
      return Number(s);
    });
  const count = shape.reduce((a, b) => a * b, 1);
  const dataStart = headerStart + headerLength;
  const need = count * dtype.Array.BYTES_PER_ELEMENT;
  if (bytes.length - dataStart < need) {
    throw new NpyError(`${file}: holds ${bytes.length - dataStart} data bytes; shape (${shape.join(', ')}) needs ${need}`);
  }
  // Copy into an aligned buffer: typed arrays need their element alignment.
  const data = new dtype.Array(count);
  Buffer.from(data.buffer).set(bytes.subarray(dataStart, dataStart + need));
  if (dtype.ort === 'bool') for (let i = 0; i < count; ++i) data[i] = data[i] ? 1 : 0;
  return { dtype: dtype.ort, shape, data };
}

function write(file, ortType, shape, data) {
  const descr = Object.keys(DTYPES).find((k) => DTYPES[k].ort === ortType);
  if (!descr) throw new NpyError(`${file}: cannot write dtype ${ortType}`);
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const prefix = Buffer.alloc(10);
  MAGIC.copy(prefix, 0);
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  // onnxruntime-node gives a bool tensor's data as a Uint8Array; a plain array of booleans is
  // taken too.
  const typed = ortType === 'bool' && !(data instanceof Uint8Array) ? Uint8Array.from(data, (b) => (b ? 1 : 0)) : data;
  const body = Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength);
  const partial = `${file}.partial`;
  fs.writeFileSync(partial, Buffer.concat([prefix, Buffer.from(header, 'latin1'), body]));
  fs.renameSync(partial, file);
}

module.exports = { read, write, NpyError };
