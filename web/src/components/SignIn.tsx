import { useState } from "preact/hooks";
import { api, ApiError } from "../api";

export function SignIn({ onIn }: { onIn: () => void }) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.signIn(password);
      onIn();
    } catch (err) {
      setError(err instanceof ApiError ? err.sentence : "That didn't work. Try again.");
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form onSubmit={submit} class="card">
        <h1>Conch</h1>
        <p class="quiet">Your assistant, on your own computer.</p>
        <label for="password">Password</label>
        <input
          id="password"
          type="password"
          autocomplete="current-password"
          autoFocus
          value={password}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        />
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || !password}>
          Sign in
        </button>
      </form>
    </main>
  );
}
