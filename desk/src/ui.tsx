// Small pieces every view uses: loading a resource, errors that say what to do, dates and numbers
// in the person's locale, links that can only be http(s), the known pipelines.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ContentPipelineError, type ApiClient } from '../../clients/typescript/src/browser.js';

export type Client = ApiClient;

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const utcDateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const number = new Intl.NumberFormat();

export const fmtDate = (iso: string | null | undefined): string => (iso ? dateTime.format(new Date(iso)) : '—');
export const fmtUtc = (iso: string): string => `${utcDateTime.format(new Date(iso))} UTC`;
export const fmtNumber = (n: number): string => number.format(n);

/** A link's address if it is http(s), else null: a `javascript:` or `data:` link from an import never becomes a link. */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/** An external link (http(s) only; anything else is shown as text). */
export function ExternalLink(props: { href: string | null | undefined; children: ComponentChildren }) {
  const href = safeHref(props.href);
  if (!href) return <span class="user-text">{props.children}</span>;
  return (
    <a href={href} rel="noopener noreferrer nofollow" target="_blank">
      {props.children}
    </a>
  );
}

/** Text written by someone else (an import, a feed, a model): isolated from the page's direction, wrapped anywhere. */
export function UserText(props: { text: string; block?: boolean }) {
  return props.block ? (
    <p class="user-text" dir="auto">
      {props.text}
    </p>
  ) : (
    <bdi class="user-text">{props.text}</bdi>
  );
}

/** What went wrong, in the API's words, and what to do. */
export function describeError(err: unknown): string {
  if (err instanceof ContentPipelineError) {
    const hint =
      err.status === 401
        ? ' Sign in again with a new link (`npx cpa desk` prints one).'
        : err.suggestedAction
          ? ` Suggested next step: ${err.suggestedAction.replaceAll('_', ' ')}.`
          : '';
    return `${err.message}${hint}`;
  }
  if (err instanceof TypeError) return 'The service did not answer: check that it is running, then try again.';
  return err instanceof Error ? err.message : String(err);
}

export function ErrorNote(props: { error: unknown }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {describeError(props.error)}
    </p>
  );
}

/** Loads `fn` when `deps` change; `reload` loads it again. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** A fresh idempotency key for one action (kept while the action is retried). */
export const newKey = (what: string): string => `desk-${what}-${crypto.randomUUID()}`;

/** Every pipeline of the workspace (GET /pipelines, page after page), newest first. */
export const allPipelines = (client: Client) => client.paginate('/api/agent/v1/pipelines', { params: { query: { limit: 100 } } }).toArray({ limit: 1000 });

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

/** One action of a view (a form, a button): runs it, keeps its error for `ErrorNote` and whether it is under way. */
export function useAction(): { error: unknown; busy: boolean; run: (fn: () => Promise<void>) => Promise<void> } {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run };
}

/** A form's submit handler that runs `fn` as the action. */
export const submitting = (action: { run: (fn: () => Promise<void>) => Promise<void> }, fn: () => Promise<void>) => (e: Event) => {
  e.preventDefault();
  void action.run(fn);
};
