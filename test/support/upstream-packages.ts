import { join } from 'node:path'

/**
 * Test packages built from the families' own upstream code (scripts/models/<family>/build.sh), committed in
 * their release form (a `.tar.bz2` archive, as sherpa-onnx publishes them) to keep the repository small.
 */
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'models')

export const ZIPVOICE_PACKAGE = 'sherpa-onnx-zipvoice-distill-zh-en-emilia'
export const ZIPVOICE_ARCHIVE = join(FIXTURES, 'zipvoice', `${ZIPVOICE_PACKAGE}.tar.bz2`)

export const VITS_PACKAGE = 'vits-piper-en_US-parla-low'
export const VITS_TWO_SPEAKERS = 'vits-piper-en_US-parla2-low'
export const vitsArchive = (name: string): string => join(FIXTURES, 'vits-piper', `${name}.tar.bz2`)

export const VITS_LJS_PACKAGE = 'vits-ljs'
export const VITS_LJS_ARCHIVE = join(FIXTURES, 'vits-ljs', 'vits-ljs.tar.bz2')
