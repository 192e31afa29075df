import { useEffect, useState } from 'preact/hooks';
import { errorText } from './components.tsx';
import { request } from './client.ts';
import { graphql } from './graphql.ts';
import { notifyLibraryChanged } from './library-events.ts';
import { ownWriteStarted } from './live-updates.ts';

const UndoMarks = graphql(`
  mutation UndoMarks($ids: [Int!]!) {
    undoMarks(ids: $ids) {
      __typename
      ... on MutationUndoMarksSuccess {
        data {
          removed
          feedVersion
        }
      }
      ... on Error {
        message
      }
    }
  }
`);

/** Undoes marks by their history entries. */
export async function undoMarks(ids: number[]): Promise<void> {
  const written = ownWriteStarted();
  try {
    const result = (await request(UndoMarks, { ids })).undoMarks;
    if (result.__typename !== 'MutationUndoMarksSuccess') throw new Error(result.message);
    written(result.data.feedVersion);
  } finally {
    written(null);
  }
  notifyLibraryChanged();
}


/**
 * The "undo" offered right after any mark anywhere in the app: one toast at a time, for
 * `toastMs`, announced politely; its Undo button takes the mark's history entries back.
 */
export const toastMs = 8000;

interface Toast {
  id: number;
  text: string;
  historyIds: number[];
  state: 'shown' | 'undoing' | 'undone' | 'failed';
  error?: string;
}

let current: Toast | null = null;
let serial = 0;
const listeners = new Set<(toast: Toast | null) => void>();
let timer: ReturnType<typeof setTimeout> | undefined;

function publish(toast: Toast | null, hideAfter = toastMs): void {
  current = toast;
  listeners.forEach((listener) => listener(toast));
  clearTimeout(timer);
  if (toast) timer = setTimeout(() => current?.id === toast.id && publish(null), hideAfter);
}

/** Shows `text` with an Undo button (none when nothing was written). */
export function showUndo(text: string, historyIds: number[]): void {
  publish({ id: ++serial, text, historyIds, state: 'shown' });
}

async function undo(toast: Toast): Promise<void> {
  publish({ ...toast, state: 'undoing' });
  try {
    await undoMarks(toast.historyIds);
    publish({ ...toast, state: 'undone', text: 'Undone.' }, 3000);
  } catch (error) {
    publish({ ...toast, state: 'failed', error: `Could not undo: ${errorText(error)}` });
  }
}

/** The toast area, rendered once by the app. */
export function Toasts() {
  const [toast, setToast] = useState<Toast | null>(current);
  useEffect(() => {
    listeners.add(setToast);
    return () => void listeners.delete(setToast);
  }, []);
  return (
    <div class="toast-area" role="status" aria-live="polite">
      {toast && (
        <div class="toast">
          <span>{toast.state === 'failed' ? toast.error : toast.text}</span>
          {toast.historyIds.length > 0 && (toast.state === 'shown' || toast.state === 'undoing') && (
            <button type="button" disabled={toast.state === 'undoing'} onClick={() => void undo(toast)}>
              Undo
            </button>
          )}
          <button type="button" class="link" aria-label="Dismiss" onClick={() => publish(null)}>
            ×
          </button>
        </div>
      )}
    </div>
  );
}
