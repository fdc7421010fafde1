/**
 * What LiveKit's OpenAI STT plugin sends to a realtime transcription endpoint, read from its code:
 * `livekit-plugins/livekit-plugins-openai/livekit/plugins/openai/stt.py` in github.com/livekit/agents at
 * commit da6af86ac640a3bc54585764e64321d7048c1c16 (plugin 1.7.0), with the pydantic models of the `openai`
 * Python SDK it serialises (github.com/openai/openai-python at e43b422412a9e96c9cc5192c61fffbe2d7e04836, 3.3.1).
 *
 * Set up as `openai.STT(base_url='http://parla:8080/v1', api_key=KEY, use_realtime=True)` (without
 * `use_realtime` a gpt-4o model goes to `/v1/audio/transcriptions` instead), language "en" and model
 * "gpt-4o-mini-transcribe" by default:
 *
 * - Connect (`_connect_ws`, aiohttp `ws_connect`, no permessage-deflate, no subprotocol, no Origin):
 *   `ws://<base>/realtime?intent=transcription&model=<model>` (the model is added for any host but
 *   api.openai.com) with the headers `User-Agent: LiveKit Agents` and `Authorization: Bearer <key>`.
 * - At once, without waiting for `session.created` (`_run`): one `session.update`, `model_dump(by_alias=True,
 *   exclude_unset=True)` of `SessionUpdateEvent` sent with `json.dumps` (fields in the models' order) —
 *   `SESSION_UPDATE` below. Realtime-only models (gpt-realtime-whisper, gpt-live-transcribe) leave
 *   `turn_detection` out; `noise_reduction` appears only when configured.
 * - Audio (`send_task`): the agent's frames resampled to 24 kHz mono 16-bit and cut by `AudioByteStream` into
 *   50 ms frames (1200 samples, 2400 bytes), each `{"type": "input_audio_buffer.append", "audio": <base64>}`,
 *   sent as the room delivers them (real time; a room's microphone track goes on sending in silences). When
 *   the agent's input ends, the bytes left (under 50 ms) go as one shorter frame (`flush`).
 * - Never `input_audio_buffer.clear`. `input_audio_buffer.commit` only for the realtime-only models, when
 *   the plugin's own VAD says speech ended (`vad_task`); with server VAD the server ends each turn.
 * - The socket goes back to a pool when a speech stream ends; the next stream on it sends the same
 *   `session.update` again before its audio. The pool closes it with code 1000 (or after 10 minutes).
 *
 * What it reads (`recv_task`; text frames only, a binary frame is logged and skipped; any close it did not
 * start is an error and it reconnects):
 * - `input_audio_buffer.speech_started`: `item_id` (string), `audio_start_ms` (number);
 * - `input_audio_buffer.speech_stopped`: `item_id`, `audio_end_ms` (the item's duration is end − start, if
 *   positive, reported as recognition usage);
 * - `conversation.item.input_audio_transcription.delta`: `delta` (string, appended to the interim text as is,
 *   so deltas carry their own spaces) and `item_id` (falls back to the last one seen);
 * - `conversation.item.input_audio_transcription.completed`: `transcript` (the final transcript if non-empty),
 *   `item_id`, `languages` (optional list of `{code}`), `usage` (`.get('input_tokens', 0)`, `.get('output_tokens', 0)`:
 *   absent or an object);
 * - `error`: `error.message`; the stream then fails without retrying.
 * Everything else (`session.created/updated`, `input_audio_buffer.committed`) is ignored.
 */

/** The plugin's default model, with server-side turn detection. */
export const MODEL = 'gpt-4o-mini-transcribe'
/** A realtime-only model: no `turn_detection` sent, the plugin commits each turn itself. */
export const REALTIME_ONLY_MODEL = 'gpt-realtime-whisper'
export const query = (model: string) => `?intent=transcription&model=${model}`
export const HEADERS = { 'User-Agent': 'LiveKit Agents' } as const
export const SAMPLE_RATE = 24_000
/** `AudioByteStream(samples_per_channel=SAMPLE_RATE // 20)`: 50 ms of 16-bit mono. */
export const FRAME_BYTES = (SAMPLE_RATE / 20) * 2
export const FRAME_MS = 50

/** The plugin's default turn detection: server VAD, threshold 0.5, 600 ms padding, 350 ms silence. */
const TURN_DETECTION = ', "turn_detection": {"type": "server_vad", "prefix_padding_ms": 600, "silence_duration_ms": 350, "threshold": 0.5}'

/** The `session.update` for `model` (language "en"), exactly as `json.dumps` writes it. */
export const sessionUpdate = (model: string): string =>
  '{"session": {"type": "transcription", "audio": {"input": {"format": {"rate": 24000, "type": "audio/pcm"}, ' +
  `"transcription": {"language": "en", "model": "${model}"}${model === REALTIME_ONLY_MODEL ? '' : TURN_DETECTION}}}}, ` +
  '"type": "session.update"}'

/**
 * Sent by `vad_task` for a realtime-only model when its VAD (`inference.VAD(model="silero")`, whose
 * `min_silence_duration` is 0.25 s) says the speaker stopped.
 */
export const COMMIT = '{"type": "input_audio_buffer.commit"}'
export const VAD_SILENCE_MS = 250

/** One `input_audio_buffer.append` as `json.dumps` writes it. */
export const append = (pcm: Uint8Array): string =>
  `{"type": "input_audio_buffer.append", "audio": "${Buffer.from(pcm).toString('base64')}"}`

/** The frames a stream of `pcm` (24 kHz 16-bit mono) becomes: 50 ms each, the rest flushed at the end. */
export function frames(pcm: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = []
  for (let at = 0; at < pcm.length; at += FRAME_BYTES) out.push(pcm.subarray(at, Math.min(pcm.length, at + FRAME_BYTES)))
  return out
}
