import { approvalQuestion, decisionsOf, inBundles } from './approval.questions.js';
import { humanReply } from './human-question.types.js';

const REQUESTS = [
  { id: 'a', toolName: 'deploy', input: { service: 'checkout' } },
  { id: 'b', toolName: 'drop_table', input: { table: 'users' } },
];

describe('approval questions', () => {
  it('show the tool’s name and arguments, with approve and deny', () => {
    const question = approvalQuestion(REQUESTS[0], 0);
    expect(question).toMatchObject({ id: 'approval_1', title: 'Approve deploy?', options: [{ option_id: 'approve' }, { option_id: 'deny' }] });
    expect(question.prompt).toContain('`deploy`');
    expect(question.prompt).toContain('"service": "checkout"');
  });

  it('trim huge arguments to the prompt limit', () => {
    expect(approvalQuestion({ id: 'x', toolName: 't', input: 'x'.repeat(10_000) }, 0).prompt.length).toBeLessThanOrEqual(4000);
  });

  it('an answer approves the calls whose question chose approve; anything else denies every call', () => {
    const answered = decisionsOf(REQUESTS, {
      status: 'answered',
      pendingId: 'p',
      respondedAt: '',
      answers: [
        { question_id: 'approval_1', selected_options: ['approve'], custom_text: 'fine' },
        { question_id: 'approval_2', selected_options: ['deny'], custom_text: '' },
      ],
    });
    expect(answered.map((decision) => [decision.id, decision.approved, decision.reason])).toEqual([
      ['a', true, 'fine'],
      ['b', false, ''],
    ]);
    expect(decisionsOf(REQUESTS, { status: 'rejected', pendingId: 'p', reason: 'not today', respondedAt: '' }).map((d) => [d.approved, d.reason])).toEqual([
      [false, 'not today'],
      [false, 'not today'],
    ]);
    expect(decisionsOf(REQUESTS, { status: 'expired', pendingId: 'p' }).every((decision) => !decision.approved)).toBe(true);
  });

  it('at most four requests go in one bundle', () => {
    expect(inBundles([1, 2, 3, 4, 5, 6, 7, 8, 9]).map((bundle) => bundle.length)).toEqual([4, 4, 1]);
  });
});

describe('humanReply', () => {
  it('names the chosen options by label, also for ids the server generated', () => {
    const questions = [{ prompt: 'Which?', options: [{ label: 'Red' }, { label: 'Blue' }] }, { id: 'size', prompt: 'Size?', options: [{ option_id: 's', label: 'Small' }, { option_id: 'l', label: 'Large' }] }];
    const reply = humanReply(questions, {
      status: 'answered',
      pendingId: 'p',
      respondedAt: '',
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt2'], custom_text: '' },
        { question_id: 'size', selected_options: ['s', 'l'], custom_text: 'both' },
      ],
    });
    expect(reply).toEqual({
      status: 'answered',
      pending_id: 'p',
      answers: [
        { question_id: 'q1', selected_options: ['q1_opt2'], selected_labels: ['Blue'], custom_text: '' },
        { question_id: 'size', selected_options: ['s', 'l'], selected_labels: ['Small', 'Large'], custom_text: 'both' },
      ],
    });
    expect(humanReply(questions, { status: 'cancelled', pendingId: 'p' })).toEqual({ status: 'cancelled', pending_id: 'p' });
  });
});
