"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";
import { ApiError } from "@/lib/api-error";
import type { Session } from "@/lib/auth-store";
import { reauthMethods, type ReauthMethod } from "@/lib/reauth";
import { ReauthForm } from "./reauth-form";

type Guard = <T>(action: () => Promise<T>) => Promise<T>;

const ReauthContext = createContext<Guard | null>(null);

/** Not confirmed: nothing was done. */
export const NOT_CONFIRMED = new ApiError(403, "reauth_cancelled", "Not confirmed: nothing was changed.");

/**
 * Runs `action`; when the API answers `reauth_required`, asks the person to sign in again (a
 * dialog over the current one) and then runs it once more. Outside a provider it just runs.
 */
export function useReauth(): Guard {
  const guard = useContext(ReauthContext);
  return guard ?? ((action) => action());
}

interface Pending {
  methods: ReauthMethod[];
  done: (confirmed: boolean) => void;
}

export function ReauthProvider({ session, children }: { session: Session; children: ReactNode }) {
  const [pending, setPending] = useState<Pending | null>(null);
  const asking = useRef<Promise<boolean> | null>(null);

  const ask = useCallback((methods: ReauthMethod[]): Promise<boolean> => {
    // Two refused actions at once share one question.
    asking.current ??= new Promise<boolean>((resolve) => {
      setPending({
        methods,
        done: (confirmed) => {
          asking.current = null;
          setPending(null);
          resolve(confirmed);
        },
      });
    });
    return asking.current;
  }, []);

  const guard = useCallback<Guard>(
    async (action) => {
      try {
        return await action();
      } catch (err) {
        const methods = reauthMethods(err);
        if (methods === null) throw err;
        if (!(await ask(methods))) throw NOT_CONFIRMED;
        return action();
      }
    },
    [ask],
  );
  const value = useMemo(() => guard, [guard]);

  return (
    <ReauthContext.Provider value={value}>
      {children}
      <Dialog.Root open={pending !== null} onOpenChange={(open) => !open && pending?.done(false)}>
        <Dialog.Portal>
          <Dialog.Overlay className="reauth-overlay" />
          <Dialog.Content className="reauth-dialog" data-testid="reauth-dialog" aria-describedby={undefined}>
            <div className="drawer-head">
              <Dialog.Title className="drawer-title">Confirm it&apos;s you</Dialog.Title>
              <Dialog.Close className="button icon ghost" aria-label="Cancel" data-testid="reauth-cancel">
                <span aria-hidden="true">✕</span>
              </Dialog.Close>
            </div>
            {pending && (
              <ReauthForm session={session} methods={pending.methods} onConfirmed={() => pending.done(true)} />
            )}
          </Dialog.Content>
        </Dialog.Portal>
      </Dialog.Root>
    </ReauthContext.Provider>
  );
}
