// Lessons for a class (docs/lessons.md): the format and its checker, the check vocabulary and its
// evaluator, the run view a check reads, and the shipped lessons. The page and the CLI import this.
export {
  LESSON_FORMAT, LESSON_MAX_CHARS, MAX_STEPS, CONTROLS, ACTIONS, TRAINING_ACTIONS, checkLesson, checkLessonText,
  type Lesson, type LessonStep, type Action, type ActionName, type ControlName, type LessonCheck, type DecodedSetting, type SettingDecoder,
} from './format';
export {
  CHECK_KINDS, OPS, FLAG_NAMES, ARMS, checkKind, checkProblems, evaluateCheck, resultLine, scaleCheck, parseComparison,
  zeroStdCount, rewardHacked, bestStepBy,
  type Check, type CheckKind, type CheckResult, type Op, type MemberPick, type EvalAt, type StepAt, type FlagName, type Arm,
  type MetricCheck, type StepMetricCheck, type ZeroStdCheck, type FrontierCheck, type FlagCheck, type BestCheck, type CompareCheck,
} from './checks';
export { comparisonOf, stepRowOf, type LessonRunView, type LessonMember, type LessonEval, type LessonStepMetrics, type LessonFlag, type LessonComparisonRow } from './runView';
export { SHIPPED_LESSONS, findLesson } from './shipped';
export { encodeLesson, decodeLesson, LESSON_LINK_MAX } from './link';
