export { askHuman, driveThread, interruptMarker, type InterruptibleGraph, type ThreadTarget } from './interrupt.bridge.js';
export type { HumanQuestionsInput, HumanReply, ReadableAnswer } from '../shared/human-question.types.js';
