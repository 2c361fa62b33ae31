import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type RequestBody, type Schemas } from '../../api/client';

export type LlmConfig = Schemas['LlmConfig'];
export type LlmRun = Schemas['LlmRun'];
export type LlmDiff = Schemas['LlmDiff'];
export type LlmConfigInput = RequestBody<'/llm/config', 'put'>;
export type NewRun = RequestBody<'/llm/runs', 'post'>;

/** Query keys of the area, all under `['llm']`. */
export const llmKeys = {
  all: ['llm'] as const,
  config: ['llm', 'config'] as const,
  models: ['llm', 'models'] as const,
  runs: ['llm', 'runs'] as const,
  run: (id: string) => ['llm', 'runs', id] as const,
  prompt: (id: string) => ['llm', 'runs', id, 'prompt'] as const,
  diff: (id: string) => ['llm', 'runs', id, 'diff'] as const,
  connections: ['llm', 'connections'] as const,
  tables: (connectionId: string) => ['llm', 'tables', connectionId] as const,
};

export function useLlmConfig() {
  return useQuery({ queryKey: llmKeys.config, queryFn: async () => (await ok(api.GET('/llm/config'))).data });
}

/** PUT /llm/config; the answer replaces the cached settings, and the models are asked again. */
export function useSaveLlmConfig() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: LlmConfigInput) => (await ok(api.PUT('/llm/config', { body }))).data,
    onSuccess: (saved) => {
      queryClient.setQueryData(llmKeys.config, saved);
      void queryClient.invalidateQueries({ queryKey: llmKeys.models });
    },
  });
}

export function useTestLlm() {
  return useMutation({ mutationFn: async () => (await ok(api.POST('/llm/config/test', {}))).data });
}

/** The provider's models, asked when the person opens the list. */
export function useLlmModels(enabled: boolean) {
  return useQuery({ queryKey: llmKeys.models, enabled, queryFn: async () => (await ok(api.GET('/llm/models'))).data.models });
}

/** The connections the person may ask about (first 100). */
export function useAskConnections() {
  return useQuery({
    queryKey: llmKeys.connections,
    queryFn: async () => (await ok(api.GET('/connections', { params: { query: { limit: 100 } } }))).data.connections,
  });
}

/** A connection's tables, by ref and label, from its effective schema. */
export function useAskTables(connectionId: string) {
  return useQuery({
    queryKey: llmKeys.tables(connectionId),
    enabled: connectionId !== '',
    queryFn: async () => {
      const schema = (await ok(api.GET('/connections/{id}/schema', { params: { path: { id: connectionId } } }))).data;
      return schema.model.tables.map((t) => ({ ref: t.ref, label: t.display.label }));
    },
  });
}

export function useRuns() {
  return useQuery({ queryKey: llmKeys.runs, queryFn: async () => (await ok(api.GET('/llm/runs', { params: { query: { limit: 20 } } }))).data.runs });
}

/** One run; asked again every second while the model is working on it. */
export function useRun(id: string) {
  return useQuery({
    queryKey: llmKeys.run(id),
    enabled: id !== '',
    queryFn: async () => (await ok(api.GET('/llm/runs/{id}', { params: { path: { id } } }))).data.run,
    refetchInterval: (q) => (q.state.data?.state === 'running' ? 1000 : false),
  });
}

export function usePrompt(id: string, enabled: boolean) {
  return useQuery({
    queryKey: llmKeys.prompt(id),
    enabled: enabled && id !== '',
    queryFn: async () => (await ok(api.GET('/llm/runs/{id}/prompt', { params: { path: { id } } }))).data,
  });
}

export function useDiff(id: string, enabled: boolean) {
  return useQuery({
    queryKey: llmKeys.diff(id),
    enabled: enabled && id !== '',
    queryFn: async () => (await ok(api.GET('/llm/runs/{id}/diff', { params: { path: { id } } }))).data.diff,
  });
}

function useRunMutation<V>(fn: (v: V) => Promise<LlmRun>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (run) => {
      queryClient.setQueryData(llmKeys.run(run.id), run);
      void queryClient.invalidateQueries({ queryKey: llmKeys.diff(run.id) });
      void queryClient.invalidateQueries({ queryKey: llmKeys.runs, exact: true });
    },
  });
}

export function useCreateRun() {
  return useRunMutation(async (body: NewRun) => (await ok(api.POST('/llm/runs', { body }))).data.run);
}

export function useRespond(id: string) {
  return useRunMutation(async (text: string) => (await ok(api.POST('/llm/runs/{id}/response', { params: { path: { id } }, body: { text } }))).data.run);
}

export function useExecute(id: string) {
  return useRunMutation(async () => (await ok(api.POST('/llm/runs/{id}/execute', { params: { path: { id } } }))).data.run);
}

export function useApply(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { diffHash: string; skipInvalid?: boolean }) =>
      (await ok(api.POST('/llm/runs/{id}/apply', { params: { path: { id } }, body }))).data,
    onSuccess: (answer) => {
      // The apply's answer carries the token; GET /llm/runs/{id} gives it back after a reload.
      queryClient.setQueryData(llmKeys.run(id), { ...answer.run, undoToken: answer.undoToken });
      void queryClient.invalidateQueries({ queryKey: llmKeys.runs, exact: true });
    },
  });
}

export function useUndo(id: string) {
  return useRunMutation(async (token: string) => (await ok(api.POST('/llm/runs/{id}/undo/{token}', { params: { path: { id, token } } }))).data.run);
}
