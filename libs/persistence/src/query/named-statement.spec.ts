import { namedStatement, statementName } from './named-statement.js';

describe('namedStatement', () => {
  it('binds each declared name as its position in the list, every occurrence alike', () => {
    const statement = namedStatement('pair', ['first', 'second'], 'SELECT :second::int + :first, :first');
    expect(statement.text).toBe('SELECT $2::int + $1, $1');
    expect(statement.parameters).toEqual(['first', 'second']);
  });

  it('replaces the longest name first, so a name that prefixes another is not read inside it', () => {
    const statement = namedStatement('prefix', ['after', 'after_at'], 'SELECT :after_at, :after');
    expect(statement.text).toBe('SELECT $2, $1');
  });

  it('leaves casts and undeclared colons alone (a time format, a JSON key)', () => {
    const statement = namedStatement('casts', ['at'], `SELECT to_char(:at::timestamptz, 'HH24:MI:SS'), '{"a":1}'::jsonb`);
    expect(statement.text).toBe(`SELECT to_char($1::timestamptz, 'HH24:MI:SS'), '{"a":1}'::jsonb`);
  });

  it('refuses a declared name the text never uses, a name declared twice, and an invalid label', () => {
    expect(() => namedStatement('unused', ['used', 'unused'], 'SELECT :used')).toThrow(':unused does not appear');
    expect(() => namedStatement('twice', ['one', 'one'], 'SELECT :one')).toThrow('declared twice');
    expect(() => namedStatement('Bad-Label', ['one'], 'SELECT :one')).toThrow('invalid statement label');
  });

  it('keeps the variant, and names two texts of one label apart', () => {
    const all = namedStatement('reach', ['id'], 'SELECT :id', 'all');
    const user = namedStatement('reach', ['id', 'user_id'], 'SELECT :id, :user_id', 'user');
    expect(all.variant).toBe('all');
    expect(statementName(all.label, all.text)).not.toBe(statementName(user.label, user.text));
    expect(statementName(all.label, all.text)).toMatch(/^reach_[0-9a-f]{16}$/);
  });
});
