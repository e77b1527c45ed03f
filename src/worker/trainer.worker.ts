// The trainer in a Web Worker, behind comlink: one run at a time (TrainerApi), on the backend
// browserHost.ts chooses, with warm starts from this origin (pretrained here when there is none).
import * as Comlink from 'comlink';
import { probeWebGpu } from '../gpu/probe';
import { backendNote, loadWarmStart, makeBackend } from './browserHost';
import { TrainerApi } from './trainerApi';

Comlink.expose(new TrainerApi(makeBackend, loadWarmStart, () => probeWebGpu(self.navigator.gpu), backendNote));
