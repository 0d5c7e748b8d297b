"use client";

import * as Menu from "@radix-ui/react-dropdown-menu";

export interface RowAction {
  label: string;
  onSelect: () => void;
  danger?: boolean;
  testId: string;
}

/** The "⋯" menu of a list row (Radix DropdownMenu: arrow keys, Escape, typeahead). */
export function RowMenu({ label, actions, testId }: { label: string; actions: RowAction[]; testId: string }) {
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger className="button icon ghost row-menu-trigger" aria-label={label} data-testid={testId}>
        <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
          <path fill="currentColor" d="M6 10.5a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3zm6 0a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3zm6 0a1.5 1.5 0 1 1 0 3 1.5 1.5 0 0 1 0-3z" />
        </svg>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content className="menu" align="end" sideOffset={4}>
          {actions.map((action) => (
            <Menu.Item
              key={action.label}
              className={`menu-item${action.danger ? " danger" : ""}`}
              onSelect={action.onSelect}
              data-testid={action.testId}
            >
              {action.label}
            </Menu.Item>
          ))}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
