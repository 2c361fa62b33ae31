import * as RadixTabs from '@radix-ui/react-tabs';
import type { ReactNode } from 'react';
import './primitives.css';

/** One tab: its id (the value), the words on it, and its panel. */
export interface TabDefinition {
  id: string;
  label: ReactNode;
  panel: ReactNode;
}

/**
 * Tabs (Radix Tabs, decision DB55): a `tablist` named by `label`, arrow keys between tabs, each
 * panel a `tabpanel` named by its tab. Uncontrolled with `defaultTab`, or controlled with
 * `value` and `onChange` (a screen that keeps the tab in its address).
 */
export function Tabs({
  label,
  tabs,
  defaultTab,
  value,
  onChange,
}: {
  label: string;
  tabs: readonly TabDefinition[];
  defaultTab?: string;
  value?: string;
  onChange?: (id: string) => void;
}) {
  return (
    <RadixTabs.Root className="tabs" defaultValue={defaultTab ?? tabs[0]?.id} value={value} onValueChange={onChange}>
      <RadixTabs.List className="tabs-list" aria-label={label}>
        {tabs.map((tab) => (
          <RadixTabs.Trigger key={tab.id} value={tab.id} className="tabs-trigger">
            {tab.label}
          </RadixTabs.Trigger>
        ))}
      </RadixTabs.List>
      {tabs.map((tab) => (
        <RadixTabs.Content key={tab.id} value={tab.id} className="tabs-panel">
          {tab.panel}
        </RadixTabs.Content>
      ))}
    </RadixTabs.Root>
  );
}
