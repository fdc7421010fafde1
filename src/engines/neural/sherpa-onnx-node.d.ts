// sherpa-onnx-node ships no type declarations; host-main.ts narrows the one export it uses.
declare module 'sherpa-onnx-node' {
  const sherpa: unknown
  export default sherpa
}
