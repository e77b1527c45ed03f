// A sweep's members as one stacked population on WebGPU in a Web Worker, behind comlink
// (PopulationApi): one set of dispatches per step for all of them.
import * as Comlink from 'comlink';
import { backendNote, loadWarmStart, makeBackend } from './browserHost';
import { PopulationApi } from './populationApi';

Comlink.expose(new PopulationApi(makeBackend, loadWarmStart, backendNote));
