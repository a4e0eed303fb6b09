export function Verify() {
  return <h1>Verify</h1>;
}
