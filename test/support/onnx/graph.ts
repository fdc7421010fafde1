import { bytes, concat, float, int, message, packedFloats, packedInts, type Field } from './protobuf.js'

/**
 * A tiny ONNX model builder (field numbers from onnx/onnx.proto), enough for the synthetic models the neural
 * tests run through the real runtime: typed inputs/outputs, initializers, nodes, metadata.
 */
export const FLOAT = 1
export const INT32 = 6
export const INT64 = 7

export type Dim = number | string
export interface ValueInfo { readonly name: string; readonly type: number; readonly shape: readonly Dim[] }
export interface Tensor { readonly name: string; readonly type: typeof FLOAT | typeof INT64; readonly dims: readonly number[]; readonly values: readonly number[] }
export type Attribute = { readonly name: string } & ({ readonly i: number } | { readonly f: number } | { readonly ints: readonly number[] } | { readonly s: string })
export interface Node { readonly op: string; readonly inputs: readonly string[]; readonly outputs: readonly string[]; readonly attributes?: readonly Attribute[] }

export interface ModelSpec {
  readonly inputs: readonly ValueInfo[]
  readonly outputs: readonly ValueInfo[]
  readonly initializers?: readonly Tensor[]
  readonly nodes: readonly Node[]
  readonly metadata?: Readonly<Record<string, string | number>>
  readonly opset?: number
}

const valueInfo = (field: number, v: ValueInfo): Field =>
  message(field, [
    bytes(1, v.name),
    message(2, [message(1, [int(1, v.type), message(2, v.shape.map((d) => message(1, [typeof d === 'number' ? int(1, d) : bytes(2, d)])))])]),
  ])

const tensor = (field: number, t: Tensor): Field =>
  message(field, [
    packedInts(1, t.dims),
    int(2, t.type),
    t.type === FLOAT ? packedFloats(4, t.values) : packedInts(7, t.values),
    bytes(8, t.name),
  ])

const attribute = (a: Attribute): Field => {
  if ('i' in a) return message(5, [bytes(1, a.name), int(3, a.i), int(20, 2)])
  if ('f' in a) return message(5, [bytes(1, a.name), float(2, a.f), int(20, 1)])
  if ('ints' in a) return message(5, [bytes(1, a.name), packedInts(8, a.ints), int(20, 7)])
  return message(5, [bytes(1, a.name), bytes(4, a.s), int(20, 3)])
}

const node = (n: Node, index: number): Field =>
  message(1, [...n.inputs.map((i) => bytes(1, i)), ...n.outputs.map((o) => bytes(2, o)), bytes(3, `n${index}`), bytes(4, n.op), ...(n.attributes ?? []).map(attribute)])

/** Serialized ModelProto bytes. */
export function buildModel(spec: ModelSpec): Uint8Array {
  const graph = message(7, [
    ...spec.nodes.map(node),
    bytes(2, 'synthetic'),
    ...(spec.initializers ?? []).map((t) => tensor(5, t)),
    ...spec.inputs.map((v) => valueInfo(11, v)),
    ...spec.outputs.map((v) => valueInfo(12, v)),
  ])
  return concat([
    int(1, 8),
    bytes(2, 'parla-tests'),
    graph,
    message(8, [bytes(1, ''), int(2, spec.opset ?? 13)]),
    ...Object.entries(spec.metadata ?? {}).map(([k, v]) => message(14, [bytes(1, k), bytes(2, String(v))])),
  ])
}
