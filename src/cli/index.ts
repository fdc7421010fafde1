import { Command } from 'commander'
import { tuneMalloc } from '../malloc-tuning.js'
import { registerKeyCommands } from './keys.js'
import { registerModelCommands } from './models.js'
import { registerServeCommand } from './serve.js'
import { registerTranscribeCommand } from './transcribe.js'

tuneMalloc()

const program = new Command()
  .name('parla')
  .description('Parla: a self-hosted speech service with the Fish-Audio-compatible API')
  .showHelpAfterError()

registerServeCommand(program)
registerKeyCommands(program)
registerTranscribeCommand(program)
registerModelCommands(program)

await program.parseAsync(process.argv)
