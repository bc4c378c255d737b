// Playground: pick a model, fill in a form generated from its input schema, run it, watch it,
// see the outputs inline, and copy the same request as curl.
import { html, useEffect, useMemo, useState } from '/dashboard/vendor/preact-htm.js';
import { api, follow, uploadFile } from '../api.js';
import { CopyButton, Notice, credits, usd } from './ui.js';
import { Viewer3d } from './viewer3d.js';

const TERMINAL = ['completed', 'failed', 'cancelled'];

function types(p) {
  return Array.isArray(p.type) ? p.type.filter((t) => t !== 'null') : [p.type || 'string'];
}

/** The form's string value -> the JSON value the schema wants; undefined leaves the field out. */
function toValue(p, raw) {
  if (raw === undefined || raw === '') return undefined;
  const t = types(p);
  if (t.includes('boolean')) return Boolean(raw);
  if (t.includes('integer') || t.includes('number')) return Number(raw);
  if (t.includes('array')) {
    const items = String(raw).split(',').map((s) => s.trim()).filter(Boolean);
    return p.items && (p.items.type === 'integer' || p.items.type === 'number') ? items.map(Number) : items;
  }
  if (t.includes('object')) { try { return JSON.parse(raw); } catch { return raw; } }
  return raw;
}

function Field({ name, p, required, value, onChange }) {
  const id = `f-${name}`;
  const t = types(p);
  const label = html`<span>${name}${required ? html` <abbr title="required">*</abbr>` : ''}</span>`;
  const help = p.description ? html`<small>${p.description}</small>` : null;
  if (p.enum) {
    return html`<label for=${id}>${label}
      <select id=${id} name=${name} value=${value ?? ''} onChange=${(e) => onChange(e.target.value === '' ? undefined : (t.includes('integer') || t.includes('number') ? Number(e.target.value) : e.target.value))}>
        ${!required && html`<option value="">(default${p.default !== undefined ? `: ${p.default}` : ''})</option>`}
        ${p.enum.map((v) => html`<option value=${v}>${String(v)}</option>`)}
      </select>${help}</label>`;
  }
  if (t.includes('boolean')) {
    return html`<label class="check" for=${id}><input id=${id} name=${name} type="checkbox" checked=${value ?? p.default ?? false} onChange=${(e) => onChange(e.target.checked)} /> ${label}${help}</label>`;
  }
  if (t.includes('integer') || t.includes('number')) {
    return html`<label for=${id}>${label}
      <input id=${id} name=${name} type="number" min=${p.minimum} max=${p.maximum} step=${t.includes('integer') ? 1 : 'any'} placeholder=${p.default ?? ''} required=${required}
        value=${value ?? ''} onInput=${(e) => onChange(toValue(p, e.target.value))} />${help}</label>`;
  }
  if (p.format === 'uri') return html`<${UrlField} name=${name} p=${p} required=${required} value=${value} onChange=${onChange} label=${label} help=${help} />`;
  const long = name === 'prompt' || name === 'negative_prompt' || (p.maxLength ?? 0) > 200;
  return long
    ? html`<label for=${id}>${label}<textarea id=${id} name=${name} rows="3" required=${required} maxlength=${p.maxLength} value=${value ?? ''} onInput=${(e) => onChange(toValue(p, e.target.value))} />${help}</label>`
    : html`<label for=${id}>${label}<input id=${id} name=${name} type=${p.format === 'uri' ? 'url' : 'text'} required=${required} maxlength=${p.maxLength} placeholder=${p.default ?? ''}
        value=${value ?? ''} onInput=${(e) => onChange(toValue(p, e.target.value))} />${help}</label>`;
}

/** A URL input with an upload next to it: the file goes through the upload-address route. */
function UrlField({ name, p, required, value, onChange, label, help }) {
  const [state, setState] = useState('');
  const id = `f-${name}`;
  const upload = async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    setState(`Uploading ${file.name}…`);
    try {
      const up = await uploadFile(file);
      onChange(up.file_url);
      setState(`${file.name} uploaded.`);
    } catch (err) {
      setState(err.message);
    }
  };
  return html`<div class="url-field"><label for=${id}>${label}<input id=${id} name=${name} type="url" required=${required} maxlength=${p.maxLength}
      value=${value ?? ''} onInput=${(e) => onChange(toValue(p, e.target.value))} /></label>
    <label>or upload a file <input type="file" name=${`${name}-file`} onChange=${upload} /></label>
    ${state && html`<small role="status">${state}</small>`}${help}</div>`;
}

function Output({ url, kind, nsfw }) {
  const [shown, setShown] = useState(!nsfw);
  if (!shown) return html`<button class="nsfw" onClick=${() => setShown(true)}>This output may be sensitive. Show it.</button>`;
  if (kind === 'image') return html`<a href=${url} target="_blank" rel="noopener"><img src=${url} alt="Generated image" /></a>`;
  if (kind === 'video') return html`<video src=${url} controls playsinline />`;
  if (kind === 'audio') return html`<audio src=${url} controls />`;
  if (kind === 'text') return html`<${TextOutput} url=${url} />`;
  if (kind === 'model3d') return html`<${Viewer3d} url=${url} />`;
  return html`<a href=${url} download>Download the file</a>`;
}

function TextOutput({ url }) {
  const [text, setText] = useState('Loading…');
  useEffect(() => { fetch(url).then((r) => r.text()).then(setText, () => setText('The text could not be loaded.')); }, [url]);
  return html`<pre class="text-output">${text}</pre>`;
}

function curlFor(model, input) {
  const body = JSON.stringify(input).replace(/'/g, `'\\''`);
  return `curl -s ${location.origin}${model.path} -H "x-api-key: $MEDIAGATE_API_KEY" \\\n  -H 'content-type: application/json' -d '${body}'`;
}

export function Playground() {
  const [models, setModels] = useState(null);
  const [error, setError] = useState(null);
  const [category, setCategory] = useState('');
  const [slug, setSlug] = useState('');
  const [input, setInput] = useState({});
  const [run, setRun] = useState(null);
  const [busy, setBusy] = useState(false);
  const [quote, setQuote] = useState(null);

  useEffect(() => {
    api('GET', '/api/v1/models', { auth: false }).then((r) => {
      setModels(r.body.models);
      const wanted = new URLSearchParams(location.hash.split('?')[1] || '').get('model');
      const first = r.body.models.find((m) => m.slug === wanted) || r.body.models.find((m) => m.available) || r.body.models[0];
      if (first) { setCategory(first.category); setSlug(first.slug); }
    }, setError);
  }, []);
  // a link to another model (#/playground?model=...) while this page is open
  useEffect(() => {
    const changed = () => {
      const wanted = new URLSearchParams(location.hash.split('?')[1] || '').get('model');
      const m = (models || []).find((x) => x.slug === wanted);
      if (m && m.slug !== slug) { setCategory(m.category); pick(m.slug); }
    };
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, [models, slug]);

  const categories = useMemo(() => [...new Set((models || []).map((m) => m.category))].sort(), [models]);
  const inCategory = (models || []).filter((m) => m.category === category);
  const model = (models || []).find((m) => m.slug === slug);
  const props = model ? model.input_schema.properties || {} : {};
  const required = new Set(model ? model.input_schema.required || [] : []);

  // the live price: a quote for the form as it is, 300 ms after the last change
  useEffect(() => {
    if (!model) return undefined;
    // a quote without a required field would only be a 422: wait for the form to be complete
    const missing = (model.input_schema.required || []).filter((f) => input[f] === undefined && model.input_schema.properties[f]?.default === undefined);
    if (missing.length) { setQuote({ missing }); return undefined; }
    let current = true;
    const timer = setTimeout(() => {
      api('POST', '/app/calculate_dynamic_cost', { team: true, body: { model: model.slug, input } })
        .then((r) => current && setQuote({ ...r.body }), (err) => current && setQuote({ error: err }));
    }, 300);
    return () => { current = false; clearTimeout(timer); };
  }, [slug, input]);

  const pick = (s) => { setSlug(s); setInput({}); setRun(null); setError(null); };
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    setRun(null);
    try {
      const r = await api('POST', model.path, { body: input, team: true });
      const started = { id: r.body.request_id, status: r.body.status, price: r.body.price, outputs: [], has_nsfw_contents: [] };
      setRun(started);
      const final = TERMINAL.includes(r.body.status)
        ? (await api('GET', `/api/v1/predictions/${r.body.request_id}/result`, { team: true })).body
        : await follow(r.body.request_id, (p) => setRun({ ...p, price: r.body.price }));
      setRun({ ...final, price: r.body.price });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (!models) return error ? html`<${Notice} error=${error} />` : html`<p class="loading" role="status">Loading the models…</p>`;
  return html`
    <div class="playground">
      <section class="picker" aria-label="Models">
        <label>Category
          <select name="category" value=${category} onChange=${(e) => { setCategory(e.target.value); const m = models.find((x) => x.category === e.target.value); if (m) pick(m.slug); }}>
            ${categories.map((c) => html`<option value=${c}>${c}</option>`)}
          </select>
        </label>
        <ul class="models">
          ${inCategory.map((m) => html`<li>
            <button class=${m.slug === slug ? 'model selected' : 'model'} aria-pressed=${m.slug === slug} onClick=${() => pick(m.slug)}>
              <strong>${m.title}</strong>
              <span class="badges">${m.tier && html`<span class="badge">${m.tier}</span>`}${!m.available && html`<span class="badge muted" title="No provider is configured on this gateway; sandbox keys still work">unavailable</span>`}</span>
            </button></li>`)}
        </ul>
      </section>
      ${model && html`
      <section class="run" aria-label="Run">
        <h2>${model.title}</h2>
        <p class="muted">${model.slug} · ${credits(model.price.at_defaults)} at the defaults${!model.available ? ' · not available here (no provider configured)' : ''}</p>
        <form onSubmit=${submit} class="model-form">
          ${Object.entries(props).map(([name, p]) => html`<${Field} name=${name} p=${p} required=${required.has(name)} value=${input[name]}
            onChange=${(v) => setInput((prev) => { const next = { ...prev }; if (v === undefined) delete next[name]; else next[name] = v; return next; })} />`)}
          <p class="quote" aria-live="polite" data-testid="quote">${!quote ? 'Pricing…' : quote.missing
            ? `Fill in ${quote.missing.join(', ')} to see the price (${credits(model.price.at_defaults)} at the defaults).`
            : quote.error
            ? (quote.error.status === 422 ? `No price yet: ${quote.error.message}` : quote.error.message)
            : html`This run costs <strong>${credits(quote.cost)}</strong> (${usd(quote.cost)})${quote.affordable ? '' : html`; <span class="minus">your balance of ${credits(quote.balance)} does not cover it</span>`}.`}</p>
          <div class="actions">
            <button type="submit" disabled=${busy}>${busy ? 'Running…' : 'Run'}</button>
            <${CopyButton} text=${curlFor(model, input)} label="Copy as curl" />
          </div>
        </form>
        <${Notice} error=${error} />
        ${run && html`
          <div class="result" aria-live="polite">
            <p><span class=${`status ${run.status}`} data-testid="run-status">${run.status}</span> · ${credits(run.price ?? 0)} · <code>${run.id}</code></p>
            ${run.error && html`<p class="notice error">${run.error}</p>`}
            <div class="outputs">
              ${(run.outputs || []).map((url, i) => html`<figure><${Output} url=${url} kind=${model.output} nsfw=${(run.has_nsfw_contents || [])[i]} /></figure>`)}
            </div>
          </div>`}
      </section>`}
    </div>`;
}
