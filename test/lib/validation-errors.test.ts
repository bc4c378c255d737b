import test from 'ava';
import { toValidationItems } from '../../lib/validation-errors.ts';

test('a missing body field is reported at body.<field> as missing', (t) => {
  t.deepEqual(toValidationItems([{ keyword: 'required', instancePath: '/requestBody', params: { missingProperty: 'prompt' } }]), [
    { loc: ['body', 'prompt'], msg: 'Field required', type: 'missing' },
  ]);
});

test('a missing request body is reported at body', (t) => {
  t.deepEqual(toValidationItems([{ keyword: 'required', instancePath: '', params: { missingProperty: 'requestBody' } }]), [
    { loc: ['body'], msg: 'Field required', type: 'missing' },
  ]);
});

test('range, pattern and type errors name the field and the rule', (t) => {
  const items = toValidationItems([
    { keyword: 'maximum', instancePath: '/requestBody/duration', params: { limit: 15 } },
    { keyword: 'pattern', instancePath: '/requestBody/aspect_ratio', params: { pattern: '^x$' } },
    { keyword: 'type', instancePath: '/query/page', params: { type: 'integer' } },
    { keyword: 'additionalProperties', instancePath: '/requestBody', params: { additionalProperty: 'colour' } },
    { keyword: 'minimum', instancePath: '/requestBody/images/0/size', params: { limit: 1 } },
  ]);
  t.deepEqual(items, [
    { loc: ['body', 'duration'], msg: 'Input should be less than or equal to 15', type: 'less_than_equal' },
    { loc: ['body', 'aspect_ratio'], msg: "String should match pattern '^x$'", type: 'string_pattern_mismatch' },
    { loc: ['query', 'page'], msg: 'Input should be a valid integer', type: 'int_type' },
    { loc: ['body', 'colour'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    { loc: ['body', 'images', 0, 'size'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' },
  ]);
});

test('anyOf summaries are dropped and duplicates collapse', (t) => {
  const items = toValidationItems([
    { keyword: 'enum', instancePath: '/requestBody/tier', params: { allowedValues: ['a', 'b'] } },
    { keyword: 'enum', instancePath: '/requestBody/tier', params: { allowedValues: ['a', 'b'] } },
    { keyword: 'anyOf', instancePath: '/requestBody/tier', params: {} },
  ]);
  t.deepEqual(items, [{ loc: ['body', 'tier'], msg: 'Input should be one of "a", "b"', type: 'enum' }]);
});
