export function App() {
  return (
    <main>
      <h1>Program RL Lab</h1>
    </main>
  );
}
