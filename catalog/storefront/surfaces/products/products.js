// The product images page, a dashboard-page: the dashboard frames it in a sandboxed iframe (an
// opaque origin, no cookies), so it asks the dashboard to call the app's staff-only actions
// (`listProducts`, `setImage`, `removeImage`) with the signed-in person's session, through the
// SDK's surface helper (svc-app.js). A refused upload shows the app's reason (ctx.refuse).
// A picked photo is drawn smaller on a canvas here and sent as base64: an action's body is at
// most 64 KiB, so the image is made to fit MAX_BYTES (the app's own limit, checked again there).
import { connect } from './svc-app.js';

const MAX_BYTES = 45_000;
const MAX_WIDTH = 800;
const app = connect({ key: 'storefront' });

const $ = (id) => document.getElementById(id);

/** A picked file → `{contentType, data (base64), dataUrl}` that fits MAX_BYTES: smaller and lower quality until it does. */
async function shrink(file) {
  const bitmap = await createImageBitmap(file);
  const canvas = document.createElement('canvas');
  const types = ['image/webp', 'image/jpeg'];
  const first = Math.min(MAX_WIDTH, bitmap.width);
  for (let width = first; width >= Math.min(160, first); width = Math.round(width * 0.75)) {
    canvas.width = width;
    canvas.height = Math.max(1, Math.round((bitmap.height * width) / bitmap.width));
    canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    for (const quality of [0.85, 0.7, 0.55]) {
      for (const type of types) {
        const dataUrl = canvas.toDataURL(type, quality);
        if (!dataUrl.startsWith(`data:${type};base64,`)) continue; // a type this browser cannot write
        const data = dataUrl.slice(dataUrl.indexOf(',') + 1);
        if ((data.length * 3) / 4 <= MAX_BYTES) return { contentType: type, data, dataUrl };
      }
    }
  }
  throw new Error('This image cannot be made small enough; try another one.');
}

function start() {
  const list = $('sp-list');
  const status = $('sp-status');
  const more = $('sp-more');
  let cursor = null;

  function item(p) {
    const li = document.createElement('li');
    li.className = 'sp-item';
    const preview = document.createElement('div');
    preview.className = 'sp-none';
    preview.textContent = p.hasImage ? 'Has an image' : 'No image';
    const head = document.createElement('div');
    const h = document.createElement('h2');
    h.textContent = p.name;
    const meta = document.createElement('span');
    meta.textContent = p.active ? '' : 'Not sold';
    head.append(h, meta);
    const actions = document.createElement('div');
    actions.className = 'sp-actions';
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = 'image/jpeg,image/png,image/webp';
    label.append(`Image for ${p.name} `, input);
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = `Remove the image of ${p.name}`;
    remove.hidden = !p.hasImage;
    input.addEventListener('change', async () => {
      const file = input.files && input.files[0];
      if (!file) return;
      input.disabled = true;
      status.textContent = `Preparing the image for ${p.name}…`;
      try {
        const image = await shrink(file);
        await app.action('setImage', { productId: p.id, contentType: image.contentType, data: image.data });
        const img = document.createElement('img');
        img.className = 'sp-thumb';
        img.alt = `The image of ${p.name}`;
        img.src = image.dataUrl;
        li.replaceChild(img, li.firstChild);
        remove.hidden = false;
        status.textContent = `The image of ${p.name} is saved (${Math.round((image.data.length * 3) / 4 / 1000)} kB).`;
      } catch (err) {
        status.textContent = `The image of ${p.name} was not saved: ${err.message}`;
      } finally {
        input.disabled = false;
        input.value = '';
      }
    });
    remove.addEventListener('click', async () => {
      remove.disabled = true;
      try {
        await app.action('removeImage', { productId: p.id });
        const none = document.createElement('div');
        none.className = 'sp-none';
        none.textContent = 'No image';
        li.replaceChild(none, li.firstChild);
        remove.hidden = true;
        status.textContent = `The image of ${p.name} is removed.`;
      } catch (err) {
        status.textContent = err.message;
      } finally {
        remove.disabled = false;
      }
    });
    actions.append(label, remove);
    li.append(preview, head, actions);
    return li;
  }

  async function load(next) {
    status.textContent = 'Loading…';
    try {
      const res = await app.action('listProducts', next && cursor ? { cursor } : {});
      if (!next) list.replaceChildren();
      for (const p of res.products) list.appendChild(item(p));
      cursor = res.next;
      more.hidden = !cursor;
      const n = list.children.length;
      status.textContent = n === 0 ? 'No products yet: add them in the data screens first.' : `${n} ${n === 1 ? 'product' : 'products'}.`;
    } catch (err) {
      status.textContent = err.message;
    }
  }
  more.addEventListener('click', () => load(true));
  load(false);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
