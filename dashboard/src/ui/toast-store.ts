import { useSyncExternalStore } from 'react';

/** A passing message: what happened, in one line, maybe a second; `danger` for a failure. */
export interface ToastMessage {
  id: number;
  title: string;
  description?: string;
  tone: 'info' | 'success' | 'danger';
}

/*
 * The messages waiting to be shown, outside React so any code (an event handler after its
 * component is gone, a menu that closed) can say something. ui/Toaster.tsx draws them; it is
 * loaded with the signed-in shell, so this file stays free of the Radix code.
 */
let messages: readonly ToastMessage[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());

export function toast(message: Omit<ToastMessage, 'id' | 'tone'> & { tone?: ToastMessage['tone'] }): void {
  messages = [...messages, { tone: 'info', ...message, id: nextId++ }];
  emit();
}

export function dismissToast(id: number): void {
  messages = messages.filter((m) => m.id !== id);
  emit();
}

export function useToasts(): readonly ToastMessage[] {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => messages,
  );
}
