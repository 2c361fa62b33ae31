/** What LoadMore needs of an infinite query (TanStack Query's useInfiniteQuery result). */
export interface NextPages {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/** The "show more" button under a keyset-paged list: there only while a next page exists, disabled while it loads. */
export function LoadMore({ list, label, busyLabel }: { list: NextPages; label: string; busyLabel?: string }) {
  if (!list.hasNextPage) return null;
  return (
    <button type="button" className="secondary" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
      {list.isFetchingNextPage && busyLabel ? busyLabel : label}
    </button>
  );
}
