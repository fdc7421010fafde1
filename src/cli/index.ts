import { Command } from 'commander'
import { tuneMalloc } from '../malloc-tuning.js'
import { EXIT_HELP } from './exit.js'
import { registerKeyCommands } from './keys.js'
import { registerSayCommand } from './say.js'
import { registerModelCommands } from './models.js'
import { registerServeCommand } from './serve.js'
import { registerTranscribeCommand } from './transcribe.js'
import { registerVoiceCommands } from './voices.js'

tuneMalloc()

const program = new Command()
  .name('parla')
  .description('Parla: a self-hosted speech service with the Fish-Audio-compatible API')
  .showHelpAfterError()
  .addHelpText('after', `
The API commands (say, voices, transcribe) work on the local data directory, or on a remote Parla with
--server URL --key KEY (or $PARLA_SERVER and $PARLA_KEY).

First minute:
  parla serve &                                   # prints an API key on first start (also in data/api-key)
  parla say "Hello from Parla" -o hello.mp3
  parla voices list --tag builtin
  parla voices create me.wav --title "My voice" --texts "What I say in me.wav"
  parla say "Now in my voice" --voice <id> -o mine.wav
  parla transcribe mine.wav
${EXIT_HELP}`)

registerServeCommand(program)
// A reader that stops early (`parla voices list | head -3`) closes the pipe; stop quietly, as Unix tools do,
// instead of dying on the unhandled EPIPE with a stack trace. Not `serve`: its stdout is its log, and a server
// never ends because its log's reader left (src/log-sink.ts).
program.hook('preAction', (_, action) => {
  if (action.parent === program && action.name() === 'serve') return
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0)
    throw err
  })
})
registerKeyCommands(program)
registerTranscribeCommand(program)
registerSayCommand(program)
registerVoiceCommands(program)
registerModelCommands(program)

await program.parseAsync(process.argv)
