import { z } from 'zod';
import { mergedWireSchemas, wireComponents } from './wire-components.js';

const itemWire = z.object({ id: z.string(), meta: z.object({ a: z.string() }).nullable().describe('Free-form') }).describe('An item');
const pageWire = z.object({ items: z.array(itemWire), next_cursor: z.string() });

describe('wire components', () => {
  it('names each listed shape, refers to a nested one by its name and keeps its description', () => {
    const schemas = wireComponents([
      [itemWire, 'ItemDoc'],
      [pageWire, 'ItemPageDoc'],
    ]).schemas();
    expect(Object.keys(schemas)).toEqual(['ItemDoc', 'ItemPageDoc']);
    expect(schemas.ItemDoc).toMatchObject({ type: 'object', description: 'An item', required: ['id', 'meta'] });
    expect(schemas.ItemPageDoc).toMatchObject({ properties: { items: { type: 'array', items: { $ref: '#/components/schemas/ItemDoc' } } } });
    expect(schemas.ItemDoc).not.toHaveProperty('$id');
  });

  it('references a listed shape by its component and refuses one it does not list', () => {
    const components = wireComponents([[itemWire, 'ItemDoc']]);
    expect(components.ref(itemWire)).toEqual({ $ref: '#/components/schemas/ItemDoc' });
    expect(() => components.ref(pageWire)).toThrow('not a published wire shape');
  });

  it('publishes a field listed as a map as a free-form object, nullability and description kept', () => {
    const asMap = z.registry();
    asMap.add(itemWire.shape.meta, {});
    const { ItemDoc } = wireComponents([[itemWire, 'ItemDoc']], asMap).schemas();
    expect((ItemDoc.properties as Record<string, unknown>).meta).toEqual({ type: 'object', nullable: true, additionalProperties: true, description: 'Free-form' });
  });

  it('merges the components of several libs and refuses a name two of them publish', () => {
    const items = wireComponents([[itemWire, 'ItemDoc']]);
    const pages = wireComponents([[pageWire, 'ItemPageDoc']]);
    expect(Object.keys(mergedWireSchemas(items, pages))).toEqual(['ItemDoc', 'ItemPageDoc']);
    expect(() => mergedWireSchemas(items, wireComponents([[pageWire, 'ItemDoc']]))).toThrow('two wire shapes are published as ItemDoc');
  });
});
