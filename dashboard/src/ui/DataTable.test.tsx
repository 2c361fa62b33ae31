import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DataTable, type DataColumn } from './DataTable';

interface Person {
  id: string;
  name: string;
  age: number;
}

const people: Person[] = [
  { id: 'a', name: 'Ada', age: 36 },
  { id: 'g', name: 'Grace', age: 85 },
];

const columns: ReadonlyArray<DataColumn<Person>> = [
  { id: 'name', header: 'Name', rowHeader: true, cell: (p) => p.name },
  { id: 'age', header: 'Age', align: 'end', width: '4rem', className: 'age', cell: (p) => p.age },
];

describe('DataTable', () => {
  it('renders a semantic table: caption, column headers, one row header per row, the row attributes', () => {
    const html = renderToStaticMarkup(
      <DataTable caption="People" columns={columns} rows={people} rowKey={(p) => p.id} rowAttributes={(p) => ({ 'data-testid': `person-${p.id}` })} />,
    );
    expect(html).toMatch(/^<div class="data-table-scroll"><table class="data-table"><caption id="[^"]+">People<\/caption>/);
    expect(html).toContain('<th scope="col">Name</th><th scope="col" class="data-table-end" style="width:4rem">Age</th>');
    expect(html).toContain('<tr data-testid="person-a"><th scope="row">Ada</th><td class="data-table-end age">36</td></tr>');
    expect(html).toContain('<tr data-testid="person-g"><th scope="row">Grace</th><td class="data-table-end age">85</td></tr>');
  });

  it('is not a focusable region before it is known to scroll', () => {
    const html = renderToStaticMarkup(<DataTable caption="People" columns={columns} rows={people} rowKey={(p) => p.id} />);
    expect(html).not.toContain('role="region"');
    expect(html).not.toContain('tabindex');
  });

  it('names a table without a caption by its label, and hides a caption only visually when asked', () => {
    expect(renderToStaticMarkup(<DataTable label="People" columns={columns} rows={people} rowKey={(p) => p.id} />)).toContain(
      '<table class="data-table" aria-label="People">',
    );
    expect(renderToStaticMarkup(<DataTable caption="People" captionHidden columns={columns} rows={people} rowKey={(p) => p.id} />)).toMatch(
      /<caption id="[^"]+" class="data-table-caption-hidden">People<\/caption>/,
    );
  });

  it('shows the empty message instead of the table, and an empty table without one', () => {
    const empty = renderToStaticMarkup(<DataTable caption="People" empty="Nobody yet." columns={columns} rows={[]} rowKey={(p) => p.id} />);
    expect(empty).toMatch(/^<div class="empty-state"><svg [^>]*aria-hidden="true"[^>]*>.*<\/svg><p>Nobody yet.<\/p><\/div>$/);
    expect(empty).not.toContain('<table');
    expect(renderToStaticMarkup(<DataTable caption="People" columns={columns} rows={[]} rowKey={(p) => p.id} />)).toContain('<tbody></tbody>');
  });

  it("stacked: the table says so, and each body cell carries its column's name for the narrow layout", () => {
    const html = renderToStaticMarkup(<DataTable caption="People" stacked columns={columns} rows={people} rowKey={(p) => p.id} />);
    expect(html).toContain('<table class="data-table data-table-stacked">');
    expect(html).toContain('<td class="data-table-end age" data-label="Age">36</td>');
    // The row header names the row itself: no label before it.
    expect(html).toContain('<th scope="row">Ada</th>');
  });

  it('adds the grid variant and the area classes to the table, and its test id', () => {
    const html = renderToStaticMarkup(
      <DataTable label="People" variant="grid" className="area-table" testId="people" columns={columns} rows={people} rowKey={(p) => p.id} />,
    );
    expect(html).toContain('<table class="data-table data-table-grid area-table" data-testid="people" aria-label="People">');
  });

  it('puts the load-more button under the table while a next page exists', () => {
    const list = { hasNextPage: true, isFetchingNextPage: false, fetchNextPage: async () => undefined };
    const html = renderToStaticMarkup(
      <DataTable caption="People" columns={columns} rows={people} rowKey={(p) => p.id} loadMore={{ list, label: 'Show more' }} />,
    );
    expect(html).toMatch(/<\/table><\/div><button type="button" class="secondary">Show more<\/button>$/);
  });
});
