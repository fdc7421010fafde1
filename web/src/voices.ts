// The Voices panel: the account's own voice models (the ones its key may change): edit and delete.
import { modelForm } from '../../src/api/fish/model-form.js'
import { api, blobUrl, getJson, type VoiceModel } from './api.js'
import { $, el, guard } from './ui.js'
import { loadVoices } from './voice-picker.js'

const VISIBILITIES = ['private', 'unlist', 'public']
let counter = 0

function field(label: string, input: HTMLElement): HTMLElement {
  input.id = `vf-${++counter}`
  return el('div', { className: 'field' }, el('label', { htmlFor: input.id, textContent: label }), input)
}

function input(type: string, value: string): HTMLInputElement {
  const node = document.createElement('input')
  node.type = type
  if (type !== 'file') node.value = value
  return node
}

function editForm(model: VoiceModel, item: HTMLElement): HTMLFormElement {
  const title = input('text', model.title)
  title.maxLength = 200
  title.required = true
  const description = document.createElement('textarea')
  description.value = model.description
  description.rows = 2
  const tags = input('text', model.tags.join(', '))
  tags.placeholder = 'comma, separated'
  const visibility = el('select', {}, ...VISIBILITIES.map((v) => el('option', { value: v, textContent: v, selected: v === model.visibility })))
  const cover = input('file', '')
  cover.accept = 'image/png,image/jpeg,image/webp'
  const save = el('button', { type: 'submit', className: 'primary', textContent: 'Save changes' })
  const cancel = el('button', { type: 'button', textContent: 'Cancel' })
  const form = document.createElement('form')
  form.className = 'edit stack'
  form.append(field('Title', title), field('Description', description),
    field('Tags', tags), field('Visibility', visibility), field('Cover image', cover), el('div', { className: 'actions' }, save, cancel))
  cancel.addEventListener('click', () => form.remove())
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void guard(async () => {
      const image = cover.files?.[0]
      const body = modelForm({
        title: title.value,
        description: description.value,
        visibility: visibility.value,
        tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean).join(','),
        ...(image && { cover: { blob: image, name: image.name } }),
      })
      await api(`/model/${encodeURIComponent(model._id)}`, { method: 'PATCH', body })
      await refresh()
      void loadVoices().catch(() => undefined)
    })
  })
  item.append(form)
  title.focus()
  return form
}

async function confirmDelete(model: VoiceModel): Promise<void> {
  const dialog = $<HTMLDialogElement>('confirm-delete')
  $('confirm-title').textContent = `Delete the voice "${model.title}" and its samples? This cannot be undone.`
  dialog.returnValue = ''
  dialog.showModal()
  await new Promise((resolve) => dialog.addEventListener('close', resolve, { once: true }))
  if (dialog.returnValue !== 'delete') return
  await api(`/model/${encodeURIComponent(model._id)}`, { method: 'DELETE' })
  await refresh()
  void loadVoices().catch(() => undefined)
}

function card(model: VoiceModel): HTMLElement {
  const cover = el('img', { className: 'cover', alt: '', width: 56, height: 56 })
  if (model.cover_image) void blobUrl(model.cover_image).then((url) => (cover.src = url), () => undefined)
  const edit = el('button', { type: 'button', textContent: 'Edit' })
  const remove = el('button', { type: 'button', className: 'danger', textContent: 'Delete' })
  edit.setAttribute('aria-label', `Edit ${model.title}`)
  remove.setAttribute('aria-label', `Delete ${model.title}`)
  const item = el('li', { className: 'voice' },
    el('div', { className: 'voice-head' }, cover, el('div', {},
      el('h3', { textContent: model.title }),
      el('p', { className: 'muted', textContent: `${model.state} · ${model.visibility}${model.tags.length ? ` · ${model.tags.join(', ')}` : ''}` }),
      el('p', { textContent: model.description })),
    el('div', { className: 'actions' }, edit, remove)))
  item.dataset.id = model._id
  edit.addEventListener('click', () => {
    item.querySelector('form.edit')?.remove()
    editForm(model, item)
  })
  remove.addEventListener('click', () => guard(() => confirmDelete(model)))
  return item
}

export async function refresh(): Promise<void> {
  const list = await getJson<{ items: VoiceModel[] }>('/model?self=true&page_size=100&sort_by=created_at')
  $('voices-list').replaceChildren(...(list.items.length ? list.items.map(card) : [el('li', { className: 'muted', textContent: 'No voices of your own yet: make one in the Clone panel.' })]))
}

export function initVoices(): void {
  $('voices-refresh').addEventListener('click', () => guard(refresh))
}
