export { createPocketsphinxEngine, type PocketsphinxEngine, type PocketsphinxEngineOptions } from './engine.js'
export { DECODER_PRESETS, DEFAULT_PRESET, type DecoderPreset } from './settings.js'
export { createPocketsphinxAligner, type PocketsphinxAlignerOptions } from './aligner.js'
