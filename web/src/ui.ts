// Small DOM helpers shared by the panels.
import { PlaygroundError } from './api.js'

export const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const el = document.getElementById(id)
  if (!el) throw new Error(`#${id} is missing from index.html`)
  return el as T
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node: HTMLElementTagNameMap[K] = document.createElement(tag)
  Object.assign(node, props)
  node.append(...children)
  return node
}

/** Shows one message in the page's alert region (read out by screen readers); empty hides it. */
export function showError(message: string): void {
  const box = $('error')
  box.textContent = message
  box.hidden = message === ''
}

/** Runs an action from a button: clears the old error, shows a new one in words, never throws. */
export async function guard(action: () => Promise<void>): Promise<void> {
  showError('')
  try {
    await action()
  } catch (err) {
    if ((err as Error).name === 'AbortError') return
    showError(err instanceof PlaygroundError ? err.message : `Something went wrong in the page: ${(err as Error).message}`)
  }
}

export const formatTime = (sec: number): string => {
  const m = Math.floor(sec / 60)
  const s = sec - m * 60
  return `${m}:${s.toFixed(1).padStart(4, '0')}`
}

export const fileToBase64 = async (blob: Blob): Promise<string> => {
  const bytes = new Uint8Array(await blob.arrayBuffer())
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}
