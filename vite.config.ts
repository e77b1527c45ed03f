import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Everything is served from this origin; nothing is fetched from elsewhere at run time.
export default defineConfig({
  plugins: [react()],
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4173 },
  build: { target: 'es2022', sourcemap: true },
  worker: { format: 'es' },
});
