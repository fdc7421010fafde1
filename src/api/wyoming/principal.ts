import type { Principal } from '../../principal.js'

/**
 * Wyoming has no authentication, so its requests act as no account: they may use built-in voices and
 * public voice models, never anyone's private or unlisted ones.
 */
export const WYOMING_PRINCIPAL: Principal = { accountId: 'wyoming', keyId: 'wyoming' }
