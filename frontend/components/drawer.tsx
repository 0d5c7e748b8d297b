"use client";

import * as Dialog from "@radix-ui/react-dialog";
import type { ReactNode } from "react";

interface Props {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  side: "left" | "right";
  title: string;
  children: ReactNode;
  testId: string;
}

/** A side sheet for phone width (Radix Dialog: focus trap, Escape, outside click). */
export function Drawer({ open, onOpenChange, side, title, children, testId }: Props) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="drawer-overlay" />
        <Dialog.Content className={`drawer drawer-${side}`} data-testid={testId} aria-describedby={undefined}>
          <div className="drawer-head">
            <Dialog.Title className="drawer-title">{title}</Dialog.Title>
            <Dialog.Close className="button icon ghost" aria-label={`Close ${title.toLowerCase()}`}>
              <span aria-hidden="true">✕</span>
            </Dialog.Close>
          </div>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
