import { AppError, InputError, NotFoundError } from '../errors.ts';
import { builder } from './builder.ts';

/** Interface every expected error in the schema implements. */
export const ErrorInterface = builder.interfaceRef<AppError>('Error').implement({
  description: 'An expected failure: the operation did nothing.',
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.exposeString('code', { description: 'Stable machine-readable code, e.g. BAD_INPUT, NOT_FOUND.' }),
  }),
});

builder.objectType(InputError, {
  name: 'InputError',
  description: 'Wrong, missing or out-of-range input.',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof InputError,
  fields: (t) => ({
    field: t.string({ nullable: true, description: 'The input field at fault, when one is.', resolve: (error) => error.field ?? null }),
  }),
});

builder.objectType(NotFoundError, {
  name: 'NotFoundError',
  description: 'The item does not exist.',
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof NotFoundError,
  fields: () => ({}),
});

/** Error classes the write mutations answer with as data. */
export const writeErrors = [InputError, NotFoundError];
