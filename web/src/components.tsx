import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/**
 * The page's heading. It takes the focus when the page appears, so a screen reader announces the
 * new page after a navigation and the next Tab starts at the top of its content; it also sets the
 * window title.
 */
export function PageTitle({ children }: { children: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · Airdate`;
    heading.current?.focus();
  }, [children]);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  );
}

/** What a form or button's action said: errors as alerts, success as a polite status. */
export interface Outcome {
  kind: 'error' | 'ok';
  text: string;
}

/** Announces an Outcome (aria-live): the region is always rendered so that changes are read out. */
export function Notice({ outcome }: { outcome: Outcome | null | undefined }) {
  return (
    <p role={outcome?.kind === 'error' ? 'alert' : 'status'} class={outcome ? `notice notice-${outcome.kind}` : 'notice'}>
      {outcome?.text}
    </p>
  );
}

/** The message of anything thrown, for a Notice. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `action` for a form or button: tracks busy (to disable the control) and turns its result
 * or error into an Outcome.
 */
export function useAction<Args extends unknown[]>(action: (...args: Args) => Promise<string | void>) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const run = useCallback(
    async (...args: Args) => {
      setBusy(true);
      setOutcome(null);
      try {
        const text = await action(...args);
        setOutcome(text ? { kind: 'ok', text } : null);
      } catch (error) {
        setOutcome({ kind: 'error', text: errorText(error) });
      } finally {
        setBusy(false);
      }
    },
    [action],
  );
  return { busy, outcome, run, setOutcome };
}

/** Loads data for a page; `reload` runs the loader again (after a change). */
export function useLoad<T>(loader: () => Promise<T>) {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const reload = useCallback(() => {
    loader().then(
      (data) => setState({ data }),
      (error) => setState({ error: errorText(error) }),
    );
    // The loader is a module-level or stable function in every page.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  useEffect(reload, [reload]);
  return { ...state, reload };
}

/** A read-only value (token, URL, secret) with a button that copies it. */
export function CopyField({ label, value, id }: { label: string; value: string; id: string }) {
  const [copied, setCopied] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // No clipboard permission (an http:// origin that is not localhost): select it for Ctrl+C.
      input.current?.select();
      document.execCommand('copy');
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} readOnly value={value} ref={input} spellcheck={false} onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={copy}>
          Copy<span class="visually-hidden"> {label}</span>
        </button>
      </div>
      <span role="status" class="hint">
        {copied ? `${label} copied` : ''}
      </span>
    </div>
  );
}

/**
 * A button that asks first, in a native modal <dialog>: the browser keeps the focus inside it,
 * Escape cancels, and the focus returns to the button afterwards.
 */
export function ConfirmButton(props: { label: string; question: string; confirm: string; danger?: boolean; disabled?: boolean; onConfirm: () => void; children?: ComponentChildren }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useRef(`confirm-${Math.random().toString(36).slice(2)}`).current;
  return (
    <>
      <button type="button" class={props.danger ? 'danger' : undefined} disabled={props.disabled} onClick={() => dialog.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <form
          method="dialog"
          onSubmit={(event) => {
            if ((event.submitter as HTMLButtonElement | null)?.value === 'yes') props.onConfirm();
          }}
        >
          <h2 id={titleId}>{props.question}</h2>
          {props.children}
          <div class="actions">
            <button value="no" autofocus>
              Cancel
            </button>
            <button value="yes" class={props.danger ? 'danger' : 'primary'}>
              {props.confirm}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

/** A timestamp in the browser's locale and zone, or a dash. */
export function formatTime(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : '—';
}
