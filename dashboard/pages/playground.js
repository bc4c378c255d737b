// Playground: find a model (search by name, category and tier; an unavailable one says which
// provider the operator has not set up), fill in a form generated from its input schema, run it
// and watch it (progress, cost, timings) with the output shown large beside the form; then take
// the same request as code (curl, JavaScript fetch, Python) with the key of your choice, whose
// secret is never shown unless it was created for the snippet just now.
import { html, useEffect, useMemo, useRef, useState } from '/dashboard/vendor/preact-htm.js';
import { api, follow, session, uploadFile } from '../api.js';
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
    : html`<label for=${id}>${label}<input id=${id} name=${name} type="text" required=${required} maxlength=${p.maxLength} placeholder=${p.default ?? ''}
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
  if (!shown) return html`<button type="button" class="nsfw" onClick=${() => setShown(true)}>This output may be sensitive. Show it.</button>`;
  if (kind === 'image') return html`<a href=${url} target="_blank" rel="noopener"><img src=${url} alt="Generated image" /></a>`;
  if (kind === 'video') return html`<video src=${url} controls playsinline />`;
  if (kind === 'audio') return html`<audio src=${url} controls />`;
  if (kind === 'text') return html`<${TextOutput} url=${url} />`;
  if (kind === 'model3d') return html`<${Viewer3d} url=${url} />`;
  return html`<a href=${url} download>Download the file</a>`;
}

function TextOutput({ url }) {
  const [text, setText] = useState('Loading the text…');
  useEffect(() => { fetch(url).then((r) => r.text()).then(setText, () => setText('The text could not be loaded.')); }, [url]);
  return html`<pre class="text-output">${text}</pre>`;
}

/** Why a model cannot run here: the providers it needs that the operator has not set up. */
export function unavailableReason(m) {
  const missing = (m.provider_setup || []).filter((p) => !p.configured).map((p) => p.name);
  const who = missing.length ? `its provider${missing.length > 1 ? 's' : ''} ${missing.join(' or ')} ${missing.length > 1 ? 'are' : 'is'} not set up on this gateway` : 'no provider for it is set up on this gateway';
  return `Unavailable: ${who}. Sandbox keys still return mock outputs.`;
}

function ModelPicker({ models, selected, onPick }) {
  const [q, setQ] = useState('');
  const [category, setCategory] = useState('');
  const [tier, setTier] = useState('');
  const [onlyAvailable, setOnlyAvailable] = useState(false);
  const categories = useMemo(() => [...new Set(models.map((m) => m.category))].sort(), [models]);
  const tiers = useMemo(() => [...new Set(models.map((m) => m.tier))], [models]);
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = models.filter((m) => (!category || m.category === category) && (!tier || m.tier === tier) && (!onlyAvailable || m.available)
    && words.every((w) => `${m.title} ${m.slug} ${m.category} ${m.tier} ${m.family}`.toLowerCase().includes(w)));
  return html`<section class="picker" aria-labelledby="picker-title">
    <h2 id="picker-title">Models</h2>
    <div class="field"><label for="model-search">Search</label>
      <input id="model-search" type="search" name="q" value=${q} onInput=${(e) => setQ(e.target.value)} placeholder="name, family, category…" /></div>
    <div class="field-grid two">
      <div class="field"><label for="model-category">Category</label>
        <select id="model-category" name="category" value=${category} onChange=${(e) => setCategory(e.target.value)}>
          <option value="">All</option>${categories.map((c) => html`<option value=${c}>${c}</option>`)}
        </select></div>
      <div class="field"><label for="model-tier">Tier</label>
        <select id="model-tier" name="tier" value=${tier} onChange=${(e) => setTier(e.target.value)}>
          <option value="">All</option>${tiers.map((c) => html`<option value=${c}>${c}</option>`)}
        </select></div>
    </div>
    <div class="field check"><input id="model-available" type="checkbox" checked=${onlyAvailable} onChange=${(e) => setOnlyAvailable(e.target.checked)} /><label for="model-available">Only models available here</label></div>
    <p class="muted" aria-live="polite">${shown.length} of ${models.length} models</p>
    ${shown.length === 0 ? html`<p class="empty">No model matches. Clear the search or choose another category.</p>` : html`
    <ul class="models">
      ${shown.map((m) => html`<li>
        <button type="button" class=${m.slug === selected?.slug ? 'model selected' : 'model'} aria-pressed=${m.slug === selected?.slug} onClick=${() => onPick(m)}>
          <strong>${m.title}</strong>
          <span class="badges"><span class="badge">${m.category}</span>${m.tier && html`<span class="badge">${m.tier}</span>`}${!m.available && html`<span class="badge muted">unavailable</span>`}</span>
          ${!m.available && html`<small>${unavailableReason(m)}</small>`}
        </button></li>`)}
    </ul>`}
  </section>`;
}

// ---------------------------------------------------------------- code for your own program

const pyLiteral = (v, indent = '    ') => JSON.stringify(v, null, 4).replace(/\n/g, `\n${indent}`).replace(/\btrue\b/g, 'True').replace(/\bfalse\b/g, 'False').replace(/\bnull\b/g, 'None');

/** The request as curl, JavaScript (fetch) and Python, for the chosen key. */
function snippets(model, input, key, env) {
  const url = `${location.origin}${model.path}${key.team ? `?team_id=${key.team}` : ''}`;
  const body = JSON.stringify(input, null, 2);
  const note = key.secret ? `a key created just now: keep it secret` : key.label ? `your key ${key.label}` : 'one of your API keys';
  const curlKey = key.secret ? key.secret : `$${env}`;
  return {
    curl: `${key.secret ? '' : `# ${env}: ${note}\n`}curl -s -X POST '${url}' \\
  -H "x-api-key: ${curlKey}" \\
  -H 'content-type: application/json' \\
  -H 'Prefer: wait=60' \\
  -d '${body.replace(/'/g, `'\\''`)}'
# The answer is the finished result when it takes under 60 seconds; otherwise
# poll the address in its "urls.get" with the same x-api-key header.`,
    javascript: `const apiKey = ${key.secret ? `'${key.secret}'; // ${note}` : `process.env.${env}; // ${note}`}
const res = await fetch('${url}', {
  method: 'POST',
  headers: { 'x-api-key': apiKey, 'content-type': 'application/json', prefer: 'wait=60' },
  body: JSON.stringify(${body.replace(/\n/g, '\n  ')}),
});
let result = await res.json();
// not finished within 60 seconds: follow it until it is
while (!['completed', 'failed', 'cancelled'].includes(result.status)) {
  await new Promise((resolve) => setTimeout(resolve, 2000));
  result = await (await fetch(result.urls.get, { headers: { 'x-api-key': apiKey } })).json();
}
console.log(result.status, result.outputs);`,
    python: `import os
import time

import requests

api_key = ${key.secret ? `"${key.secret}"  # ${note}` : `os.environ["${env}"]  # ${note}`}
result = requests.post(
    "${url}",
    headers={"x-api-key": api_key, "Prefer": "wait=60"},
    json=${pyLiteral(input)},
    timeout=90,
).json()
# not finished within 60 seconds: follow it until it is
while result["status"] not in ("completed", "failed", "cancelled"):
    time.sleep(2)
    result = requests.get(result["urls"]["get"], headers={"x-api-key": api_key}, timeout=30).json()
print(result["status"], result.get("outputs"))`,
  };
}

/**
 * The same request through the official OpenAI SDK, for the models the gateway's OpenAI-compatible
 * routes serve: chat completions for language models, image generations for text-to-image ones;
 * null for the others.
 */
function openaiSnippet(model, input, key, env) {
  if (model.category !== 'llm' && model.category !== 'text-to-image') return null;
  const keyLine = key.secret ? `'${key.secret}', // a key created just now: keep it secret` : `process.env.${env}, // ${key.label ? `your key ${key.label}` : 'one of your API keys'}`;
  const team = key.team ? `\n  defaultQuery: { team_id: '${key.team}' },` : '';
  const head = `import OpenAI from 'openai'; // npm install openai

const client = new OpenAI({
  apiKey: ${keyLine}
  baseURL: '${location.origin}/v1',${team}
});
`;
  if (model.category === 'llm') {
    const messages = [];
    if (input.system_prompt) messages.push({ role: 'system', content: input.system_prompt });
    messages.push({ role: 'user', content: input.prompt ?? '' });
    const req = { model: model.slug, messages };
    if (input.max_tokens !== undefined) req.max_tokens = input.max_tokens;
    if (input.temperature !== undefined) req.temperature = input.temperature;
    return `${head}const completion = await client.chat.completions.create(${JSON.stringify(req, null, 2)});
console.log(completion.choices[0].message.content);
console.log(completion.usage);`;
  }
  const req = { model: model.slug, prompt: input.prompt ?? '' };
  if (input.width !== undefined && input.height !== undefined) req.size = `${input.width}x${input.height}`;
  return `${head}const image = await client.images.generate(${JSON.stringify(req, null, 2)});
console.log(image.data.map((d) => d.url));`;
}

const LANGUAGES = [['curl', 'curl'], ['javascript', 'JavaScript'], ['python', 'Python'], ['openai', 'OpenAI SDK']];

function CodeTabs({ model, input, env }) {
  const [lang, setLang] = useState('curl');
  const [keys, setKeys] = useState([]);
  const [choice, setChoice] = useState('');
  const [fresh, setFresh] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const tabs = useRef(null);
  const team = session.teamId;
  useEffect(() => { api('GET', team ? `/app/teams/${team}/keys` : '/app/get_user_keys').then((r) => setKeys(r.body), () => setKeys([])); }, []);
  const chosen = fresh && choice === `new-${fresh.id}` ? { secret: fresh.key, team: null }
    : (() => { const k = keys.find((x) => String(x.id) === choice); return k ? { label: `"${k.name || 'unnamed'}" (${k.prefix}…)`, team: null } : { team: team || null }; })();
  const code = snippets(model, input, chosen, env);
  code.openai = openaiSnippet(model, input, chosen, env);
  // the OpenAI SDK's tab only for the models its routes serve (the tabs are made anew for each model)
  const languages = LANGUAGES.filter(([l]) => code[l] !== null);
  const create = async (isTest) => {
    setBusy(true);
    setError(null);
    try {
      const r = await api('POST', team ? `/app/teams/${team}/keys` : '/api/v1/keys', { body: { name: `playground ${model.slug}`.slice(0, 100), is_test: isTest } });
      setFresh(r.body);
      setKeys((ks) => [...ks, r.body]);
      setChoice(`new-${r.body.id}`);
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  const onKey = (e) => {
    const i = languages.findIndex(([l]) => l === lang);
    const next = e.key === 'ArrowRight' ? (i + 1) % languages.length : e.key === 'ArrowLeft' ? (i + languages.length - 1) % languages.length : -1;
    if (next < 0) return;
    e.preventDefault();
    setLang(languages[next][0]);
    tabs.current?.querySelectorAll('[role="tab"]')[next]?.focus();
  };
  return html`<section class="code" aria-labelledby="code-title">
    <h2 id="code-title">Code</h2>
    <div class="field"><label for="code-key">Key in the code</label>
      <select id="code-key" value=${choice} onChange=${(e) => setChoice(e.target.value)} aria-describedby="code-key-hint">
        <option value="">$${env} (set it in your environment)</option>
        ${keys.filter((k) => !fresh || k.id !== fresh.id).map((k) => html`<option value=${String(k.id)}>${k.name || 'unnamed'} (${k.prefix}…)${k.is_test ? ' sandbox' : ''}</option>`)}
        ${fresh && html`<option value=${`new-${fresh.id}`}>${fresh.name} (just created, shown once)</option>`}
      </select>
      <small id="code-key-hint">A saved key's secret is never shown again: the code reads it from ${env}. A key created here is written into the code until you leave the page.</small></div>
    <div class="actions">
      <button type="button" class="secondary small" disabled=${busy} onClick=${() => create(false)}>New production key for this code</button>
      <button type="button" class="secondary small" disabled=${busy} onClick=${() => create(true)}>New sandbox key</button>
    </div>
    <${Notice} error=${error} />
    <div class="tabs" role="tablist" aria-label="Language" ref=${tabs} onKeyDown=${onKey}>
      ${languages.map(([l, label]) => html`<button type="button" role="tab" id=${`tab-${l}`} aria-controls="code-panel" aria-selected=${l === lang} tabindex=${l === lang ? 0 : -1} onClick=${() => setLang(l)}>${label}</button>`)}
    </div>
    <div id="code-panel" role="tabpanel" aria-labelledby=${`tab-${lang}`}>
      <pre class="snippet" data-testid="code" tabindex="0"><code>${code[lang] ?? code.curl}</code></pre>
      <div class="actions"><${CopyButton} text=${code[lang] ?? code.curl} label=${`Copy ${(LANGUAGES.find(([l]) => l === lang && code[l] !== null) ?? LANGUAGES[0])[1]}`} /></div>
    </div>
  </section>`;
}

// ---------------------------------------------------------------- the run

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function RunState({ run, started, model }) {
  const [now, setNow] = useState(Date.now());
  const done = TERMINAL.includes(run.status);
  useEffect(() => {
    if (done) return undefined;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [done]);
  const progress = typeof run.progress === 'number' ? Math.round(run.progress * 100) : null;
  return html`<div class="run-state">
    <p><span class=${`status ${run.status}`} data-testid="run-status">${run.status}</span>
      ${run.queue_position !== null && run.queue_position !== undefined && !done ? html` · ${run.queue_position === 0 ? 'next to run' : `${run.queue_position} ahead in the queue`}` : ''}</p>
    ${!done && html`<progress max="100" value=${progress ?? undefined} aria-label="Progress">${progress !== null ? `${progress}%` : ''}</progress>`}
    <dl class="facts" data-testid="run-facts">
      <dt>Cost</dt><dd>${credits(run.price ?? 0)} <span class="muted">(${usd(run.price ?? 0)})${run.status === 'completed' ? ' charged' : done ? ', not charged' : ', held until it finishes'}</span></dd>
      <dt>Time</dt><dd>${run.executionTime ? `${run.executionTime.replace(/s$/, ' s')} in all` : seconds(now - started)}${run.timings && run.timings.inference !== null && run.timings.inference !== undefined ? `, ${seconds(run.timings.inference)} running the model` : ''}</dd>
      <dt>Request</dt><dd><code>${run.id}</code> <a href=${`#/history?id=${encodeURIComponent(run.id)}`}>details</a></dd>
      <dt>Model</dt><dd>${model.slug}</dd>
    </dl>
    ${run.error && html`<p class="notice error" role="alert">${run.error}</p>`}
  </div>`;
}

export function Playground({ site }) {
  // the environment variable the code reads the key from; a storefront's code names no gateway
  const env = site && site.studio ? 'API_KEY' : 'MEDIAGATE_API_KEY';
  const [models, setModels] = useState(null);
  const [error, setError] = useState(null);
  const [slug, setSlug] = useState('');
  const [input, setInput] = useState({});
  const [run, setRun] = useState(null);
  const [started, setStarted] = useState(0);
  const [busy, setBusy] = useState(false);
  const [quote, setQuote] = useState(null);

  useEffect(() => {
    api('GET', '/api/v1/models', { auth: false }).then((r) => {
      setModels(r.body.models);
      const wanted = new URLSearchParams(location.hash.split('?')[1] || '').get('model');
      const first = r.body.models.find((m) => m.slug === wanted) || r.body.models.find((m) => m.available) || r.body.models[0];
      if (first) setSlug(first.slug);
    }, setError);
  }, []);
  // a link to another model (#/playground?model=...) while this page is open
  useEffect(() => {
    const changed = () => {
      const wanted = new URLSearchParams(location.hash.split('?')[1] || '').get('model');
      const m = (models || []).find((x) => x.slug === wanted);
      if (m && m.slug !== slug) pick(m);
    };
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, [models, slug]);

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

  const pick = (m) => { setSlug(m.slug); setInput({}); setRun(null); setError(null); };
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    setRun(null);
    setStarted(Date.now());
    try {
      const r = await api('POST', model.path, { body: input, team: true });
      const price = r.body.price;
      setRun({ id: r.body.request_id, status: r.body.status, price, outputs: [], has_nsfw_contents: [] });
      const final = TERMINAL.includes(r.body.status)
        ? (await api('GET', `/api/v1/predictions/${r.body.request_id}/result`, { team: true })).body
        : await follow(r.body.request_id, (p) => setRun({ ...p, price }));
      setRun({ ...final, price });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (!models) return error ? html`<${Notice} error=${error} />` : html`<p class="loading" role="status">Loading the models…</p>`;
  return html`
    <div class="playground">
      <${ModelPicker} models=${models} selected=${model} onPick=${pick} />
      ${model && html`
      <section class="run" aria-labelledby="model-title">
        <h2 id="model-title">${model.title}</h2>
        <p class="muted">${model.slug} · ${model.category} · ${model.tier} · ${credits(model.price.at_defaults)} at the defaults</p>
        ${!model.available && html`<p class="notice" role="note">${unavailableReason(model)}</p>`}
        <form onSubmit=${submit} class="model-form">
          ${Object.entries(props).map(([name, p]) => html`<${Field} name=${name} p=${p} required=${required.has(name)} value=${input[name]}
            onChange=${(v) => setInput((prev) => { const next = { ...prev }; if (v === undefined) delete next[name]; else next[name] = v; return next; })} />`)}
          <p class="quote" aria-live="polite" data-testid="quote">${!quote ? 'Pricing…' : quote.missing
            ? `Fill in ${quote.missing.join(', ')} to see the price (${credits(model.price.at_defaults)} at the defaults).`
            : quote.error
            ? (quote.error.status === 422 ? `No price yet: ${quote.error.message}` : quote.error.message)
            : html`This run costs <strong>${credits(quote.cost)}</strong> (${usd(quote.cost)})${quote.affordable ? '' : html`; <span class="minus">your balance of ${credits(quote.balance)} does not cover it</span>`}.`}</p>
          <div class="actions"><button type="submit" disabled=${busy}>${busy ? 'Running…' : 'Run'}</button></div>
        </form>
        <${Notice} error=${error} />
        <${CodeTabs} model=${model} input=${input} env=${env} key=${model.slug} />
      </section>
      <section class="output" aria-labelledby="output-title" aria-live="polite">
        <h2 id="output-title">Output</h2>
        ${run ? html`
          <${RunState} run=${run} started=${started} model=${model} />
          <div class="outputs">
            ${(run.outputs || []).map((url, i) => html`<figure><${Output} url=${url} kind=${model.output} nsfw=${(run.has_nsfw_contents || [])[i]} /></figure>`)}
          </div>`
        : html`<p class="empty">Fill in the form and press Run: the ${model.output === 'model3d' ? '3D model' : model.output} appears here, with its progress, cost and timings.</p>`}
      </section>`}
    </div>`;
}
